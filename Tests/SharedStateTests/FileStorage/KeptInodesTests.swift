import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// A reader of a value larger than the coordination page reads the file itself. Writers'
/// exchanges alternate two inodes at the target name, so a reader that keeps a descriptor on
/// each reads every change made elsewhere without opening anything; one it may only read never
/// becomes its own writes' scratch file.
@Suite("File storage: the inodes a reader keeps")
struct KeptInodesTests {
  @Test func aReaderOfAnotherProcesssWritesKeepsBothInodesAndOpensNothingMore() async throws {
    let fixture = try Fixture()
    try await fixture.set(1)
    #expect(try fixture.read() == fixture.contents(1))
    let first = try #require(fixture.replacement.atTarget, "the first read keeps its descriptor")

    // The write exchanged the inode read first to the scratch name: kept, as the scratch.
    try await fixture.set(2)
    #expect(try fixture.read() == fixture.contents(2))
    let second = try #require(fixture.replacement.atTarget)
    #expect(fixture.replacement.atScratch?.descriptor == first.descriptor)

    // A descriptor this process opens now cannot be given a number a closed one freed: the
    // kept ones must be the very descriptors opened before.
    let placeholder = open("/dev/null", O_RDONLY | O_CLOEXEC)
    #expect(placeholder >= 0)
    defer { close(placeholder) }
    for value in 3...6 {
      try await fixture.set(value)
      #expect(try fixture.read() == fixture.contents(value))
      let (current, former) = value % 2 == 1 ? (first, second) : (second, first)
      #expect(fixture.replacement.atTarget?.descriptor == current.descriptor)
      #expect(fixture.replacement.atScratch?.descriptor == former.descriptor)
    }
  }

  @Test func inodesKeptOnlyForReadingAreNeverWrittenAsTheScratch() async throws {
    let fixture = try Fixture()
    try await fixture.set(1)
    // As if this process were refused when it opened the target for writing (another user's
    // file): it opens such targets for reading only.
    let status = try #require(try fixture.paths.target.entryStatusIfPresent())
    fixture.replacement.unwritableTarget = UnwritableTarget(status)
    #expect(try fixture.read() == fixture.contents(1))
    try await fixture.set(2)
    #expect(try fixture.read() == fixture.contents(2))
    #expect(fixture.replacement.atTarget?.isWritable == false)
    #expect(fixture.replacement.atScratch?.isWritable == false)

    // The inode at the scratch name is kept, for reading: this process's own write opens it
    // for writing (or makes a file of its own), and its bytes arrive.
    try fixture.write(Data("\"own\"".utf8))
    #expect(try String(contentsOfFile: fixture.paths.target.string, encoding: .utf8) == "\"own\"")
    #expect(try fixture.read() == .contents(Data("\"own\"".utf8)))
  }

  /// One path's lock and inodes, outside any handle (so that no other test's paths take the
  /// places of the descriptor budget), and `shared-demo set` writing it from other processes.
  private final class Fixture {
    let directory: TemporaryDirectory
    let paths: CompanionPaths
    let lock: PathLock
    let replacement: FileReplacement

    init() throws {
      directory = try TemporaryDirectory()
      paths = CompanionPaths(target: FilePath(directory.path("large.json")))
      lock = PathLock(paths: paths, filePermissions: [.ownerReadWrite], directoryPermissions: [.ownerReadWriteExecute])
      replacement = FileReplacement(paths: paths, lock: lock, filePermissions: [.ownerReadWrite], keepsDescriptors: true)
    }

    deinit {
      replacement.closeDescriptors()
    }

    /// A JSON string of 8 000 bytes and more, twice the page's room, ending in `value`.
    func json(_ value: Int) -> String {
      "\"" + String(repeating: "x", count: 8_000) + "\(value)\""
    }

    func contents(_ value: Int) -> FileState {
      .contents(Data(json(value).utf8))
    }

    /// Stores `value` from another process, through the protocol.
    func set(_ value: Int) async throws {
      let writer = try DemoProcess("set", "--file", paths.target.string, json(value))
      let errors = try await writer.allErrors()
      #expect(try await writer.waitForExit() == 0, "\(errors)")
    }

    /// Reads the target under the shared lock, as a handle's locked read does.
    func read() throws -> FileState {
      try lock.withSharedLock(keepingOpen: true) {
        let status = try lock.entries.target.entryStatusIfPresent(in: lock.entries.directory)
        return (try replacement.readTarget(status, limit: 1 << 20), false)
      }
    }

    /// Replaces the target with `contents` under the exclusive lock, as a transaction does.
    func write(_ contents: Data) throws {
      try lock.lockExclusively()
      defer { lock.unlock(keepingOpen: true) }
      let status = try lock.entries.target.entryStatusIfPresent(in: lock.entries.directory)
      let scratch = try replacement.prepareScratch(like: status)
      _ = try replacement.replaceTarget(
        with: FileContents(contents), scratch: scratch, durability: .atomic, closingEachTime: false
      )
    }
  }
}
