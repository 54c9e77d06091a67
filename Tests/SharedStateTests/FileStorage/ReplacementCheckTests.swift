import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// How a watcher judges a replacement it hears of, from the coordination page and the entry at
/// the target name, without the lock.
@Suite("File storage: judging a replacement")
struct ReplacementCheckTests {
  @Test func aReplacementDuringTheHandlesOwnWriteIsNotTakenForIt() throws {
    let fixture = try PageFixture(permissions: [.ownerReadWrite, .groupRead, .otherRead])
    let (directory, target, page, resources) = (fixture.directory, fixture.target, fixture.page, fixture.resources)

    // The handle's next write, half done: the page's sequence is odd, and the handle already
    // knows where the write ends and what it put at the target name (the transaction records it
    // before it publishes the write on the page).
    let ending = page.beginWrite()
    defer { page.abandonWrite(sequence: ending) }
    func freshness(of known: FileKnowledge, waiting: Bool) -> Freshness? {
      resources.freshness.look(on: waiting ? .delivery : .event, at: { known.outline }, limit: 1 << 20).freshness
    }
    let own = FileKnowledge(
      sequence: ending, identity: try target.entryStatus().identity, state: .contents(Data("1\n".utf8))
    )
    #expect(freshness(of: own, waiting: false) == .unchanged)

    // A program that takes no lock replaces the file in that moment: that is a change.
    try Self.replace(target, with: "5\n", in: directory)
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
    #expect(watcher.reading(on: .catchUp).isNothingNew)

    // Created by another handle (the protocol's own write).
    let first = writer.beginTransaction()
    try first.commit(.contents(Data("1\n".utf8)))
    first.end()
    #expect(!watcher.reading(on: .catchUp).isNothingNew)
    #expect(try watcher.readIfChanged(on: .catchUp) == .contents(Data("1\n".utf8)))
    #expect(watcher.reading(on: .catchUp).isNothingNew)

    // Replaced by a program that takes no lock.
    try Self.replace(target, with: "2\n", in: directory)
    #expect(!watcher.reading(on: .catchUp).isNothingNew)
    #expect(try watcher.readIfChanged(on: .catchUp) == .contents(Data("2\n".utf8)))
    #expect(watcher.reading(on: .catchUp).isNothingNew)

    // Removed.
    #expect(unlink(target.string) == 0)
    #expect(!watcher.reading(on: .catchUp).isNothingNew)
    #expect(try watcher.readIfChanged(on: .catchUp) == .missing)
    #expect(watcher.reading(on: .catchUp).isNothingNew)
  }

  /// A write that begins while a look is under way (after the look read the sequence, before it
  /// looked up the target name) may have put the entry found there: the look leaves it to that
  /// write's own event rather than take it for a change to read now (which would wait for the
  /// writer's lock).
  @Test func aWriteBegunDuringTheLookIsLeftToItsOwnEvent() throws {
    let fixture = try PageFixture(permissions: [.ownerReadWrite])
    let (directory, target, page, resources) = (fixture.directory, fixture.target, fixture.page, fixture.resources)
    let known = fixture.file.known
    // The look asks for the handle's knowledge between reading the sequence and looking up the
    // target: another writer begins there, and its exchange puts another file in place.
    var ending: UInt64?
    let look = resources.freshness.look(
      on: .event,
      at: {
        if ending == nil {
          ending = page.beginWrite()
          #expect(throws: Never.self) { try Self.replace(target, with: "2\n", in: directory) }
        }
        return known.outline
      },
      limit: 1 << 20
    )
    let end = try #require(ending)
    #expect(look.freshness == .busy)
    #expect(look.sequence == end - 1, "the sequence of the write under way, for the re-check")

    // That write over (here abandoned, its page not finished), the change is there to read.
    page.abandonWrite(sequence: end)
    #expect(resources.freshness.look(on: .event, at: { known.outline }, limit: 1 << 20).freshness == .changed(nil))
  }

  /// A replacement heard of while another process's write is under way waits for that write's
  /// own event; when the write does not move on (its writer died mid-write), the replacement is
  /// delivered after a moment all the same.
  ///
  /// Inside the full parallel suite the kernel's queue may overflow: the handle then hears
  /// `resynchronize` instead (compare with the disk), which stands for the replacement too.
  @Test func aReplacementDuringAStalledWriteIsDeliveredAfterAMoment() async throws {
    let directory = try TemporaryDirectory()
    let (file, target) = try Self.handleOnWrittenFile(in: directory)
    let (events, heard) = AsyncStream<FileWatchEvent>.makeStream()
    let token = file.watch { heard.yield($0) }
    defer { token.cancel() }
    try await waitUntilWatched(target.string)
    let heardEvents = AsyncQueue(events)
    func replacementHeard() async throws {
      // A bound for failure: inside the full parallel suite the tasks' threads can all be busy
      // for tens of seconds.
      _ = try await heardEvents.next(seconds: 60) { $0 == .replaced || $0 == .resynchronize }
    }
    // Heard at once while no write is under way.
    try Self.replace(target, with: "2\n", in: directory)
    try await replacementHeard()

    let (page, lock) = try Self.mapPage(in: directory)
    defer { try? lock.close() }
    let ending = page.beginWrite()
    defer { page.abandonWrite(sequence: ending) }
    try Self.replace(target, with: "3\n", in: directory)
    try await replacementHeard()
  }

  /// A write under way that announced its inode and contents is taken from the page as soon as
  /// that inode is at the target name (its exchange made), without reading the file; before
  /// that, or once another write began, the look leaves it to the write's own event.
  @Test func aWriteUnderWayIsTakenFromItsAnnouncementOnceItsInodeIsInPlace() throws {
    let fixture = try PageFixture(permissions: [.ownerReadWrite])
    let (directory, target, page, resources) = (fixture.directory, fixture.target, fixture.page, fixture.resources)
    let known = fixture.file.known
    func look(_ knowledge: @escaping () -> FileKnowledge = { known }) -> Freshness {
      resources.freshness.look(on: .event, at: { knowledge().outline }, limit: 1 << 20).freshness
    }

    // Another process's write: the sequence odd, and the inode it will exchange in announced.
    // The announced bytes differ from the file's (same length), to tell which one the look took.
    let ending = page.beginWrite()
    var latest = ending
    defer { page.abandonWrite(sequence: latest) }
    let staged = try Self.stage("2\n", in: directory, announcing: "3\n", on: page, endingAt: ending)
    #expect(look() == .busy, "the exchange is not made yet: the old inode is at the target name")

    // The exchange made (here a rename): the announcement stands for what is there.
    #expect(rename(staged.string, target.string) == 0)
    let status = try target.entryStatus()
    let expected = FileKnowledge(sequence: ending - 1, identity: status.identity, state: .contents(Data("3\n".utf8)))
    #expect(look() == .changed(expected))
    // Taken in, it is known: the exchange's later events (often in a read of their own) find
    // nothing new.
    #expect(look({ expected }) == .unchanged)

    // Another write begins during the look (after its sequence was read): nothing is taken.
    var later: UInt64?
    #expect(look({
      if later == nil { later = page.beginWrite() }
      return known
    }) == .busy)
    latest = try #require(later)
    #expect(latest == ending + 2, "a write that carries on past one that never finished takes a sequence of its own")
    // That write announced nothing yet: the first one's announcement is not taken for it.
    #expect(look() == .busy)
  }

  /// What a handle took from an announcement stays known once the write has finished, while the
  /// target name holds the same file: the exchange's events read after the delivery of the
  /// first find nothing new, and wake no delivery.
  @Test func anAnnouncementTakenStaysKnownOnceTheWriteHasFinished() throws {
    let fixture = try PageFixture(permissions: [.ownerReadWrite])
    let (directory, target, page, resources) = (fixture.directory, fixture.target, fixture.page, fixture.resources)
    func look(knowing known: FileKnowledge) -> Freshness {
      resources.freshness.look(on: .event, at: { known.outline }, limit: 1 << 20).freshness
    }

    let ending = page.beginWrite()
    let staged = try Self.stage("2\n", in: directory, announcing: "2\n", on: page, endingAt: ending)
    #expect(rename(staged.string, target.string) == 0)
    let status = try target.entryStatus()
    let taken = FileKnowledge(sequence: ending - 1, identity: status.identity, state: .contents(Data("2\n".utf8)))
    #expect(look(knowing: taken) == .unchanged, "the write under way")

    page.finishWrite(sequence: ending, identity: status.identity, state: .contents(Data("2\n".utf8)))
    #expect(look(knowing: taken) == .unchanged, "the write finished")

    // A program that takes no lock puts another file there: that is news.
    try Self.replace(target, with: "5\n", in: directory)
    #expect(look(knowing: taken) == .changed(nil))
  }

  /// A handle on `value.json` in `directory`, which it has written (so that the lock file and
  /// its page exist), and the file's path.
  private static func handleOnWrittenFile(
    in directory: TemporaryDirectory,
    permissions: FilePermissions = [.ownerReadWrite]
  ) throws -> (file: DiskFile, target: FilePath) {
    let target = FilePath(directory.path("value.json"))
    let file = DiskFile(
      path: target, durability: .atomic, filePermissions: permissions,
      directoryPermissions: [.ownerReadWriteExecute], maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    let written = file.beginTransaction()
    defer { written.end() }
    try written.commit(.contents(Data("1\n".utf8)))
    return (file, target)
  }

  /// The coordination page of `value.json` in `directory`, mapped as another process maps it,
  /// and the lock file's descriptor, for the caller to close.
  private static func mapPage(in directory: TemporaryDirectory) throws -> (CoordinationPage, FileDescriptor) {
    let lockFile = CompanionPaths(target: FilePath(directory.path("value.json"))).lock
    let lock = try FileDescriptor.open(lockFile, .readWrite)
    guard let page = CoordinationPage.map(lock, status: try lock.status()) else {
      try? lock.close()
      throw PageNotMapped()
    }
    return (page, lock)
  }

  private struct PageNotMapped: Error {}

  /// A file that its handle has written, its page mapped as another process maps it, and this
  /// process's resources for the path with the page mapped too, as a delivery maps it (an
  /// event's look then uses it). The lock file's descriptor is closed and the resources released
  /// when the fixture goes.
  private final class PageFixture {
    let directory: TemporaryDirectory
    let file: DiskFile
    let target: FilePath
    let page: CoordinationPage
    let resources: PathResources
    private let lock: FileDescriptor

    init(permissions: FilePermissions) throws {
      directory = try TemporaryDirectory()
      (file, target) = try ReplacementCheckTests.handleOnWrittenFile(in: directory, permissions: permissions)
      (page, lock) = try ReplacementCheckTests.mapPage(in: directory)
      resources = PathResources.forTarget(
        target, filePermissions: permissions, directoryPermissions: [.ownerReadWriteExecute]
      )
      _ = resources.lock.page(mapping: true)
    }

    deinit {
      try? lock.close()
      resources.release()
    }
  }

  /// Writes `text` into a new file beside the target, as a writer writes its scratch, and
  /// announces that file's inode holding `announced` for the write ending at `ending`.
  ///
  /// - Returns: The new file's path, for the caller to rename into place.
  private static func stage(
    _ text: String, in directory: TemporaryDirectory, announcing announced: String,
    on page: CoordinationPage, endingAt ending: UInt64
  ) throws -> FilePath {
    let staged = FilePath(directory.path("staged.json"))
    try Data(text.utf8).write(to: URL(fileURLWithPath: staged.string))
    let inode = try staged.entryStatus()
    page.announce(endingAt: ending, device: inode.device, inode: inode.inode, contents: FileContents(announced))
    return staged
  }

  /// Puts a file holding `text` at `target` as a program that takes no lock does: written
  /// beside it, then renamed over it.
  private static func replace(_ target: FilePath, with text: String, in directory: TemporaryDirectory) throws {
    let staged = directory.path("staged.json")
    try Data(text.utf8).write(to: URL(fileURLWithPath: staged))
    #expect(rename(staged, target.string) == 0)
  }
}
