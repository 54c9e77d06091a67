import Dependencies
import DependenciesTestSupport
import Foundation
import SystemPackage
import Testing
import TestSupport

@testable import SharedState

/// What a handle keeps of a large file to compare later reads with: not its bytes (a program
/// that holds a value of 24 MB would hold it once more as the file), yet every change is still
/// told from a rewrite of the same bytes, even a change that keeps the length.
@Suite("File storage: what a handle keeps of a large value", .dependency(\.defaultFileStorage, .fileSystem))
struct LargeValueKnowledgeTests {
  /// The most bytes of contents a handle may keep beside the value (64 KiB).
  static let keptLimit = 64 * 1024

  @Test func aHandleKeepsNoCopyOfALargeFilesBytes() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let watcher = DiskFile.forTesting(target)
    let writer = DiskFile.forTesting(target)
    let first = Self.contents(length: 1 << 20, changedAt: nil)
    let second = Self.contents(length: 1 << 20, changedAt: 1 << 19)

    // Read after a program that takes no lock wrote it.
    try Self.replace(target, with: first, in: directory)
    #expect(try watcher.read() == .contents(first))
    #expect(Self.heldBytes(watcher) <= Self.keptLimit)

    // Written through the protocol: the writer keeps no copy of what it wrote, and the watcher
    // none of what it read.
    try Self.commit(second, by: writer)
    #expect(Self.heldBytes(writer) <= Self.keptLimit)
    #expect(try watcher.readIfChanged() == .contents(second))
    #expect(Self.heldBytes(watcher) <= Self.keptLimit)

    // A small file is kept as it is: comparing it costs less than hashing it.
    try Self.replace(target, with: Data("1\n".utf8), in: directory)
    #expect(try watcher.readIfChanged() == .contents(Data("1\n".utf8)))
    #expect(watcher.known.state == .contents(Data("1\n".utf8)))
  }

  @Test func aChangeThatKeepsTheLengthIsSeenAndARewriteOfTheSameBytesIsNot() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let watcher = DiskFile.forTesting(target)
    let writer = DiskFile.forTesting(target)
    let one = Self.contents(length: 300_000, changedAt: nil)
    // One byte apart, in the middle, then at the very end.
    let two = Self.contents(length: 300_000, changedAt: 150_000)
    let three = Self.contents(length: 300_000, changedAt: 299_999)
    try Self.replace(target, with: one, in: directory)
    #expect(try watcher.read() == .contents(one))

    // By a program that takes no lock: a new file renamed over the old one each time.
    try Self.replace(target, with: two, in: directory)
    #expect(try watcher.readIfChanged() == .contents(two))
    try Self.replace(target, with: two, in: directory)
    #expect(try watcher.readIfChanged() == nil)

    // The same, heard of without an event (catching up).
    try Self.replace(target, with: three, in: directory)
    #expect(try watcher.readIfChanged(on: .catchUp) == .contents(three))
    try Self.replace(target, with: three, in: directory)
    #expect(try watcher.readIfChanged(on: .catchUp) == nil)

    // By another handle, through the protocol.
    try Self.commit(one, by: writer)
    #expect(try watcher.readIfChanged() == .contents(one))
    try Self.commit(one, by: writer)
    #expect(try watcher.readIfChanged() == nil)

    // Found by a transaction's refresh, whose change a `withLock` takes in.
    try Self.replace(target, with: two, in: directory)
    let changed = watcher.beginTransaction()
    #expect(Self.changedContents(changed) == two)
    changed.end()
    try Self.replace(target, with: two, in: directory)
    let unchanged = watcher.beginTransaction()
    #expect(unchanged.change == nil)
    unchanged.end()
  }

  /// A write made only if the file still holds what the caller expects compares that with what
  /// the handle keeps, and returns the file's bytes (never a digest) when they differ.
  @Test func aConditionalWriteComparesWithTheLargeFileAndReturnsItsBytes() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let file = DiskFile.forTesting(target)
    let held = Self.contents(length: 200_000, changedAt: nil)
    let other = Self.contents(length: 200_000, changedAt: 100_000)
    try Self.replace(target, with: held, in: directory)
    #expect(try file.read() == .contents(held))

    // Expected bytes of the same length that are not there: nothing is written, and the caller
    // gets what is there, to decode.
    let found = try file.write(Data("x".utf8), ifStillHolding: .contents(other))
    guard case let .contents(bytes) = found else {
      Issue.record("the file's bytes were not returned: \(found)")
      return
    }
    #expect(bytes.data == held)
    #expect(try Data(contentsOf: URL(fileURLWithPath: target.string)) == held)

    // The bytes that are there: written.
    #expect(try file.write(Data("x".utf8), ifStillHolding: .contents(held)) == .contents(Data("x".utf8)))
    #expect(try Data(contentsOf: URL(fileURLWithPath: target.string)) == Data("x".utf8))
  }

  /// Through a key, with a value type that is not `Equatable`, so that every delivery shows:
  /// a rewrite of the same large contents delivers nothing, a change of one byte is delivered.
  @Test func aWatchingKeyGetsEachLargeChangeOnce() async throws {
    struct Blob: Codable, Sendable { var text: String }
    let directory = try TemporaryDirectory()
    let file = directory.path("blob.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var blob = Blob(text: "")
    let values = AsyncQueue($blob.values)
    #expect(try await values.next()?.text == "")
    try await waitUntilWatched(file)
    func write(_ text: String) throws {
      try Self.replace(FilePath(file), with: try JSONEncoder().encode(Blob(text: text)), in: directory)
    }
    let first = String(repeating: "a", count: 200_000)
    let second = String(repeating: "a", count: 100_000) + "b" + String(repeating: "a", count: 99_999)

    try write(first)
    #expect(try await values.next()?.text == first)
    try write(second)
    #expect(try await values.next()?.text == second)
    // The same bytes again, then a small change that marks the end: only that one arrives.
    try write(second)
    try write("end")
    #expect(try await values.next()?.text == "end")
  }

  /// A large file is read into a buffer mapped for it (given back to the system when released):
  /// the bytes are the file's, and the data behaves as any other when cut, grown and copied.
  @Test func aLargeFileIsReadWholeIntoItsOwnBuffer() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    var large = Self.contents(length: 3 * ReadBuffer.smallestMapped + 5, changedAt: nil)
    large[0] = UInt8(ascii: "a")
    large[large.count - 1] = UInt8(ascii: "z")
    try Self.replace(target, with: large, in: directory)
    guard case let .contents(contents) = try DiskFile.forTesting(target).read() else {
      Issue.record("no contents read")
      return
    }
    var read = contents.data
    #expect(read == large)
    let copy = read
    read.count -= 10
    read.append(contentsOf: Data(repeating: 7, count: 2 * ReadBuffer.smallestMapped))
    #expect(read.count == large.count - 10 + 2 * ReadBuffer.smallestMapped)
    #expect(read.prefix(large.count - 10) == large.prefix(large.count - 10))
    #expect(copy == large, "a copy taken before is left as it was")

    var buffer = ReadBuffer.zeroed(count: ReadBuffer.smallestMapped)
    #expect(buffer.allSatisfy { $0 == 0 })
    buffer[ReadBuffer.smallestMapped - 1] = 1
    #expect(buffer.last == 1)
  }

  // MARK: Helpers

  /// `length` bytes of `x`, one of them a `y` when `changedAt` says where.
  private static func contents(length: Int, changedAt: Int?) -> Data {
    var data = Data(repeating: UInt8(ascii: "x"), count: length)
    if let changedAt { data[changedAt] = UInt8(ascii: "y") }
    return data
  }

  /// How many bytes of contents the handle keeps.
  private static func heldBytes(_ file: DiskFile) -> Int {
    if case let .contents(data)? = file.known.state { return data.count }
    return 0
  }

  private static func commit(_ contents: Data, by file: DiskFile) throws {
    let transaction = file.beginTransaction()
    defer { transaction.end() }
    try transaction.commit(.contents(contents))
  }

  /// The bytes a transaction found changed, `nil` when it found no change or no bytes.
  private static func changedContents(_ transaction: any FileTransaction) -> Data? {
    guard case let .success(.contents(contents))? = transaction.change else { return nil }
    return contents.data
  }

  /// Puts a file holding `contents` at `target` as a program that takes no lock does: written
  /// beside it, then renamed over it.
  private static func replace(_ target: FilePath, with contents: Data, in directory: TemporaryDirectory) throws {
    let staged = directory.path("staged")
    try contents.write(to: URL(fileURLWithPath: staged))
    #expect(rename(staged, target.string) == 0)
  }
}
