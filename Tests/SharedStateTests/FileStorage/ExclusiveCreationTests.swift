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
    #expect(throws: Errno.fileExists) { try transaction.write(Data(), ifStillHolding: .missing) }
    #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "5\n")
  }
}
