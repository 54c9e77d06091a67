import Dependencies
import DependenciesTestSupport
import Foundation
import Synchronization
import SystemPackage
import Testing

@testable import SharedState

/// A delivery reads the file with no lock of the reference's held, and the handle takes in what
/// it read only if nothing (a write of its own, another read) came between: what the handle
/// knows must always be what its reference holds, or a `withLock` would start from a value the
/// reference never received (a lost update).
@Suite("File storage: a reading is taken in only if nothing came between")
struct ReadingTakenInTests {
  private static func write(_ text: String, through file: DiskFile) throws {
    let transaction = file.beginTransaction()
    defer { transaction.end() }
    try transaction.commit(.contents(Data(text.utf8)))
  }

  @Test(arguments: [LookOccasion.delivery, .catchUp, .load])
  func aReadingOvertakenByTheHandlesOwnWriteIsNotTakenIn(_ occasion: LookOccasion) throws {
    let (directory, watcher, other) = try Self.twoHandlesThatKnowOne()
    defer { withExtendedLifetime(directory) {} }

    // Another handle writes; the watcher reads it, and before it takes the reading in, writes
    // itself (its transaction brings it up to date first, as a `withLock` does).
    try Self.write("2\n", through: other)
    let reading = watcher.reading(on: occasion)
    #expect(try reading.found.get() == .contents(Data("2\n".utf8)))
    try Self.write("3\n", through: watcher)

    #expect(!watcher.takeIn(reading), "the reading is older than the handle's own write")
    #expect(watcher.known.state == .contents(Data("3\n".utf8)))
    // Read again, nothing is new: the handle's write is what the file holds.
    let again = watcher.reading(on: occasion)
    if occasion == .load {
      #expect(try again.found.get() == .contents(Data("3\n".utf8)))
    } else {
      #expect(again.isNothingNew || (try? again.found.get()) == .some(nil))
    }
  }

  /// A value whose decoding counts itself: the key's decoder is the program's code.
  struct CountedDecoding: Codable, Sendable, Equatable {
    static let decodings = Mutex(0)
    var number: Int

    init(number: Int) { self.number = number }

    init(from decoder: any Decoder) throws {
      number = try decoder.singleValueContainer().decode(Int.self)
      Self.decodings.withLock { $0 += 1 }
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encode(number)
    }
  }

  /// Another process's change is read and decoded while the reference's lock is held by someone
  /// else (a reader of the value, say): the delivery waits for that lock only to take the value
  /// in, and no user code (the decoder) runs under it (invariant 10).
  @Test(.dependency(\.defaultFileStorage, .fileSystem))
  func aChangeIsReadAndDecodedWithoutTheReferencesLock() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("value.json")
    @Shared(.fileStorage(URL(fileURLWithPath: path))) var value = CountedDecoding(number: 0)
    $value.withLock { $0 = CountedDecoding(number: 1) }
    let values = AsyncQueue($value.values)
    #expect(try await values.next() == CountedDecoding(number: 1))
    let reference = try #require($value.projection as? SharedReference<CountedDecoding>)
    let writer = DiskFile.forTesting(FilePath(path))

    let decodedMeanwhile = try reference.lock.withLock {
      let before = CountedDecoding.decodings.withLock { $0 }
      try Self.write("2", through: writer)
      // Bounded: the delivery decodes within milliseconds, unless it waits for this lock.
      let deadline = Date().addingTimeInterval(10)
      while CountedDecoding.decodings.withLock({ $0 }) == before, Date() < deadline {
        usleep(1_000)
      }
      return CountedDecoding.decodings.withLock { $0 } > before
    }
    #expect(decodedMeanwhile, "the change was decoded while another thread held the reference's lock")
    #expect(try await values.next() == CountedDecoding(number: 2))
  }

  /// A temporary directory and two handles of one file in it, which another handle wrote "1"
  /// to and the first (the watcher) has read.
  private static func twoHandlesThatKnowOne() throws -> (TemporaryDirectory, watcher: DiskFile, other: DiskFile) {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let watcher = DiskFile.forTesting(target)
    let other = DiskFile.forTesting(target)
    try write("1\n", through: other)
    #expect(try watcher.read() == .contents(Data("1\n".utf8)))
    return (directory, watcher, other)
  }

  @Test func aReadingWithNothingBetweenIsTakenIn() throws {
    let (directory, watcher, other) = try Self.twoHandlesThatKnowOne()
    defer { withExtendedLifetime(directory) {} }
    try Self.write("2\n", through: other)

    let reading = watcher.reading(on: .catchUp)
    #expect(watcher.known.state == .contents(Data("1\n".utf8)), "a reading is not knowledge until taken in")
    #expect(watcher.takeIn(reading))
    #expect(watcher.known.state == .contents(Data("2\n".utf8)))
    #expect(watcher.reading(on: .catchUp).isNothingNew)
  }
}
