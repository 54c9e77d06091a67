import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// How a watcher judges a replacement it hears of, from the coordination page and the entry at
/// the target name, without the lock.
@Suite("File storage: judging a replacement")
struct ReplacementCheckTests {
  @Test func aReplacementDuringTheHandlesOwnWriteIsNotTakenForIt() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    let file = DiskFile(
      path: target, durability: .atomic, filePermissions: permissions,
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    let written = file.beginTransaction()
    try written.commit(.contents(Data("1\n".utf8)))
    written.end()

    // The handle's next write, half done: the page's sequence is odd, and the handle already
    // knows where the write ends and what it put at the target name (the transaction records it
    // before it publishes the write on the page).
    let lock = try FileDescriptor.open(FilePath(directory.path(".value.json.sharedstate-lock")), .readWrite)
    defer { try? lock.close() }
    let page = try #require(CoordinationPage.map(lock, status: try lock.status()))
    let ending = page.beginWrite()
    defer { page.abandonWrite(sequence: ending) }
    let resources = PathResources.forTarget(
      target, filePermissions: permissions, directoryPermissions: [.ownerReadWriteExecute]
    )
    defer { resources.release() }
    func freshness(of known: FileKnowledge, waiting: Bool) -> Freshness? {
      resources.lookWithoutLock(at: { known }, mapping: true, waiting: waiting, limit: 1 << 20)?.freshness
    }
    let own = FileKnowledge(
      sequence: ending, identity: try target.entryStatus().identity, state: .contents(Data("1\n".utf8))
    )
    #expect(freshness(of: own, waiting: false) == .unchanged)

    // A program that takes no lock replaces the file in that moment: that is a change.
    let staged = directory.path("staged.json")
    try Data("5\n".utf8).write(to: URL(fileURLWithPath: staged))
    #expect(rename(staged, target.string) == 0)
    #expect(freshness(of: own, waiting: false) == .changed(nil))
    #expect(freshness(of: own, waiting: true) == .changed(nil))
  }

  /// The look a handle makes when no event prompted it (catching up after the watch began, or
  /// after events were lost) tells "nothing new" without reading, and never misses a change.
  @Test func theUnpromptedLookSeesEveryKindOfChange() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    func handle() -> DiskFile {
      DiskFile(
        path: target, durability: .atomic, filePermissions: [.ownerReadWrite],
        directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
      )
    }
    let watcher = handle()
    let writer = handle()

    // Missing, and still missing.
    #expect(try watcher.read() == .missing)
    #expect(watcher.isUnchangedUnprompted())

    // Created by another handle (the protocol's own write).
    let first = writer.beginTransaction()
    try first.commit(.contents(Data("1\n".utf8)))
    first.end()
    #expect(!watcher.isUnchangedUnprompted())
    #expect(try watcher.readIfChangedUnprompted() == .contents(Data("1\n".utf8)))
    #expect(watcher.isUnchangedUnprompted())

    // Replaced by a program that takes no lock.
    let staged = directory.path("staged.json")
    try Data("2\n".utf8).write(to: URL(fileURLWithPath: staged))
    #expect(rename(staged, target.string) == 0)
    #expect(!watcher.isUnchangedUnprompted())
    #expect(try watcher.readIfChangedUnprompted() == .contents(Data("2\n".utf8)))
    #expect(watcher.isUnchangedUnprompted())

    // Removed.
    #expect(unlink(target.string) == 0)
    #expect(!watcher.isUnchangedUnprompted())
    #expect(try watcher.readIfChangedUnprompted() == .missing)
    #expect(watcher.isUnchangedUnprompted())
  }
}
