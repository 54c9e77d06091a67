import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// A file that is only created when missing (a placeholder, an app-storage default) never
/// replaces one that a program taking no lock put there after the lock holder looked.
@Suite("File storage: creating a file only where there is none")
struct ExclusiveCreationTests {
  @Test func aFileThatAppearsAfterTheLookIsNotReplaced() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let file = DiskFile(
      path: target, durability: .atomic, filePermissions: [.ownerReadWrite],
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    let transaction = try DiskFileTransaction(file: file)
    defer { transaction.end() }
    // The transaction found no file; another program writes one now, taking no lock.
    try Data("5\n".utf8).write(to: URL(fileURLWithPath: target.string))
    #expect(throws: Errno.fileExists) { try transaction.write(FileContents(Data()), ifStillHolding: .missing) }
    #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "5\n")
  }

  /// Without a lock file the file is written under a scratch name of its own and renamed into
  /// place only if nothing is at the name: what another program put there after the read
  /// stands, and is what the store returns.
  @Test func aFileCreatedWithoutTheLockNeverReplacesOne() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let file = DiskFile(
      path: target, durability: .atomic, filePermissions: [.ownerReadWrite],
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    #expect(try file.read() == .missing)
    try Data("5\n".utf8).write(to: URL(fileURLWithPath: target.string))
    #expect(try file.write(Data("1\n".utf8), ifStillHolding: .missing) == .contents(Data("5\n".utf8)))
    #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "5\n")
    #expect(try directory.contents() == ["value.json"], "nothing made beside it")

    // Where nothing came, the store is the file alone, whole, known as this handle's own.
    let other = FilePath(directory.path("other.json"))
    let created = DiskFile(
      path: other, durability: .atomic, filePermissions: [.ownerReadWrite],
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    #expect(try created.read() == .missing)
    #expect(try created.write(Data("2\n".utf8), ifStillHolding: .missing) == .contents(Data("2\n".utf8)))
    #expect(try directory.contents() == ["other.json", "value.json"])
    #expect(try created.readIfChanged(on: .catchUp) == nil, "its own store is no change")
  }
}
