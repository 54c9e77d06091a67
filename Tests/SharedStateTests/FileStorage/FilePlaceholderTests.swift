import ConcurrencyExtras
import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Testing

/// The empty file a file-storage key leaves on its first read, as swift-sharing does, so that
/// the file exists from the first run; never written over anything that is there.
@Suite("File storage: the placeholder file", .dependency(\.defaultFileStorage, .fileSystem))
struct FilePlaceholderTests {
  let directory: TemporaryDirectory

  init() throws {
    directory = try TemporaryDirectory()
  }

  @Test func theFirstReadLeavesAnEmptyFileWithAWritesMode() throws {
    let url = URL(fileURLWithPath: directory.path("count.json"))
    @Shared(.fileStorage(url)) var count = 42
    #expect(count == 42)
    #expect($count.loadError == nil)
    #expect(try Data(contentsOf: url) == Data())
    // The mode a write gives a new file.
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("written.json")))) var written = 0
    $written.withLock { $0 = 1 }
    #expect(try Self.mode(url.path) == Self.mode(directory.path("written.json")))
  }

  @Test func aLoadWithoutAnInitialValueCreatesNothing() async throws {
    let url = URL(fileURLWithPath: directory.path("required.json"))
    await #expect(throws: (any Error).self) { try await Shared<Int>(require: .fileStorage(url)) }
    #expect(!FileManager.default.fileExists(atPath: url.path))
    let other = URL(fileURLWithPath: directory.path("loaded.json"))
    @Shared(value: 0) var loaded: Int
    try? await $loaded.load(.fileStorage(other))
    #expect(!FileManager.default.fileExists(atPath: other.path))
  }

  @Test(arguments: ["7", "not json", ""])
  func aFileThatIsThereIsNeverReplaced(contents: String) throws {
    let path = directory.path("count.json")
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    let before = try Self.inode(path)
    let shared = Shared(wrappedValue: 42, .fileStorage(URL(fileURLWithPath: path)))
    #expect(shared.wrappedValue == (contents == "7" ? 7 : 42))
    #expect((shared.loadError != nil) == (contents == "not json"))
    #expect(try String(contentsOfFile: path, encoding: .utf8) == contents)
    #expect(try Self.inode(path) == before, "the file was replaced")
  }

  @Test func swiftSharingsPlaceholderBytesHoldNoValueAndBecomeAnEmptyFile() throws {
    let url = URL(fileURLWithPath: directory.path("count.json"))
    try Data("co.pointfree.Sharing.FileStorage.stub".utf8).write(to: url)
    @Shared(.fileStorage(url)) var count = 3
    #expect(count == 3)
    #expect($count.loadError == nil)
    #expect(try Data(contentsOf: url) == Data())
  }

  @Test func aDeletedFileComesBackEmptyWhileWatched() async throws {
    let url = URL(fileURLWithPath: directory.path("count.json"))
    @Shared(.fileStorage(url)) var count = 0
    $count.withLock { $0 = 5 }
    try FileManager.default.removeItem(at: url)
    try await Self.waitForFile(url)
    #expect(try Data(contentsOf: url) == Data())
    try await withTimeout(seconds: 20) { [$count] in
      while $count.wrappedValue != 0 { try await Task.sleep(for: .milliseconds(1)) }
    }
    #expect($count.loadError == nil)
  }

  /// On the main actor, where the placeholder is put back (changes are delivered there): the
  /// removal of the placeholder and the move back run without suspending, so the placeholder
  /// cannot come back between them, as the next test relies on. Off it, a busy machine lets the
  /// watcher put it back in between, and the move fails.
  @MainActor
  @Test func aFileMovedAwayComesBackEmptyAndTheMovedFileIsLeftAlone() async throws {
    let url = URL(fileURLWithPath: directory.path("count.json"))
    let elsewhere = URL(fileURLWithPath: directory.path("moved.json"))
    @Shared(.fileStorage(url)) var count = 0
    $count.withLock { $0 = 5 }
    try FileManager.default.moveItem(at: url, to: elsewhere)
    try await Self.waitForFile(url)
    #expect(try Data(contentsOf: url) == Data())
    #expect(try String(contentsOf: elsewhere, encoding: .utf8) == "5")
    // Moved back, the value returns.
    try FileManager.default.removeItem(at: url)
    try FileManager.default.moveItem(at: elsewhere, to: url)
    try await withTimeout(seconds: 20) { [$count] in
      while $count.wrappedValue != 5 { try await Task.sleep(for: .milliseconds(1)) }
    }
  }

  /// The placeholder comes back where changes are delivered (the main actor here), as
  /// swift-sharing's does: main-actor code that removes it and moves another file into its place
  /// without suspending finds the name free every time (a watcher thread racing it would not).
  @MainActor
  @Test func mainActorCodeThatPutsAFileBackFindsTheNameFree() async throws {
    let url = URL(fileURLWithPath: directory.path("count.json"))
    let elsewhere = URL(fileURLWithPath: directory.path("moved.json"))
    @Shared(.fileStorage(url)) var count = 0
    for round in 1...20 {
      $count.withLock { $0 = round }
      try FileManager.default.moveItem(at: url, to: elsewhere)
      try await Self.waitForFile(url)
      try FileManager.default.removeItem(at: url)
      try FileManager.default.moveItem(at: elsewhere, to: url)
      try await withTimeout(seconds: 20) { @MainActor [$count] in
        while $count.wrappedValue != round { try await Task.sleep(for: .milliseconds(1)) }
      }
    }
  }

  @Test func theInMemoryStorageHoldsTheEmptyFileToo() throws {
    let url = URL(fileURLWithPath: "/nowhere/count.json")
    let files = LockIsolated<[URL: Data]>([:])
    withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem: files)
    } operation: {
      @Shared(.fileStorage(url)) var count = 42
      #expect(count == 42)
      #expect(files.value == [url: Data()])
    }
  }

  static func mode(_ path: String) throws -> Int? {
    try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
  }

  static func inode(_ path: String) throws -> UInt64? {
    try (FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
  }

  /// Waits until a file is at `url`, failing after 20 seconds.
  static func waitForFile(_ url: URL) async throws {
    try await withTimeout(seconds: 20) {
      while !FileManager.default.fileExists(atPath: url.path) { try await Task.sleep(for: .milliseconds(1)) }
    }
  }
}
