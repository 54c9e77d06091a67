import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// A delivery reads the file with no lock of the reference's held, and the handle takes in what
/// it read only if nothing (a write of its own, another read) came between: what the handle
/// knows must always be what its reference holds, or a `withLock` would start from a value the
/// reference never received (a lost update).
@Suite("File storage: a reading is taken in only if nothing came between")
struct ReadingTakenInTests {
  private static func handle(_ target: FilePath) -> DiskFile {
    DiskFile(
      path: target, durability: .atomic, filePermissions: [.ownerReadWrite],
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
  }

  private static func write(_ text: String, through file: DiskFile) throws {
    let transaction = file.beginTransaction()
    defer { transaction.end() }
    try transaction.commit(.contents(Data(text.utf8)))
  }

  @Test(arguments: [LookOccasion.delivery, .catchUp, .load])
  func aReadingOvertakenByTheHandlesOwnWriteIsNotTakenIn(_ occasion: LookOccasion) throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let watcher = Self.handle(target)
    let other = Self.handle(target)
    try Self.write("1\n", through: other)
    #expect(try watcher.read() == .contents(Data("1\n".utf8)))

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

  @Test func aReadingWithNothingBetweenIsTakenIn() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let watcher = Self.handle(target)
    let other = Self.handle(target)
    try Self.write("1\n", through: other)
    #expect(try watcher.read() == .contents(Data("1\n".utf8)))
    try Self.write("2\n", through: other)

    let reading = watcher.reading(on: .catchUp)
    #expect(watcher.known.state == .contents(Data("1\n".utf8)), "a reading is not knowledge until taken in")
    #expect(watcher.takeIn(reading))
    #expect(watcher.known.state == .contents(Data("2\n".utf8)))
    #expect(watcher.reading(on: .catchUp).isNothingNew)
  }
}
