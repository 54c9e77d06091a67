import Dependencies
import DependenciesTestSupport
import Foundation
import Synchronization
import SystemPackage
import Testing
import TestSupport

@testable import SharedState

/// A delivery of a change made elsewhere that finds a `withLock` of its key under way (waiting
/// for the path's lock, or holding it) leaves the change to that transaction, whose refresh takes
/// it in, rather than wait for the reference's lock, which the `withLock` holds meanwhile.
@Suite("File storage: a delivery left to a transaction under way")
struct DeferredDeliveryTests {
  /// Only while a transaction is under way.
  @Test func aDeliveryIsLeftOnlyToATransactionUnderWay() throws {
    let directory = try TemporaryDirectory()
    let file = DiskFile.forTesting(FilePath(directory.path("value.json")))
    #expect(!file.deferToTransaction())
    let transaction = file.beginTransaction()
    #expect(file.deferToTransaction())
    try transaction.commit(.contents(Data("1\n".utf8)))
    transaction.end()
    #expect(!file.deferToTransaction())
  }

  /// A `withLock` that changes nothing has the delivery left to it made all the same: the
  /// change it deferred may be a file that a program taking no lock renamed in after the
  /// transaction's refresh, which nothing else would deliver.
  @Test(.dependency(\.defaultFileStorage, .fileSystem))
  func aWithLockThatChangesNothingHasTheDeliveryMade() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("value.json")
    let key = FileStorageKey<Int>.fileStorage(URL(fileURLWithPath: path))
    @Shared(key) var value = 0
    // The handle of the reference's own copy of the key, which its transactions use.
    let reference = try #require($value.projection as? SharedReference<Int>)
    let file = try #require((reference.keyInUse as? FileStorageKey<Int>)?.file as? DiskFile)
    $value.withLock { $0 = 1 }
    let values = AsyncQueue($value.values)
    #expect(try await values.next() == 1)
    try await waitUntilWatched(path)

    let deferred = $value.withLock { _ in
      // A program that takes no lock renames a file in while the transaction holds the lock.
      let other = directory.path("other.json")
      _ = FileManager.default.createFile(atPath: other, contents: Data("5".utf8))
      rename(other, path)
      // Its event's delivery finds the transaction under way and leaves the change to it.
      let deadline = Date().addingTimeInterval(60)
      while !file.state.withLock({ $0.hasDeferredDelivery }), Date() < deadline { usleep(1000) }
      return file.state.withLock { $0.hasDeferredDelivery }
    }
    try #require(deferred, "the delivery was left to the transaction")
    // The body changed nothing, so nothing was written: the delivery is made after the end.
    #expect(try await values.next(seconds: 60) { $0 == 5 } == 5)
  }

  /// A `withLock`'s transaction that released the path's lock while the reference still holds
  /// its own takes deliveries too, until the reference lets go: then the one left to it is made,
  /// on the thread that lets go, before `resumeDeliveries()` returns (handed to another thread,
  /// it cost more than the wait it spares). A write made in that moment came after the
  /// transaction's refresh, so it is made even though the transaction wrote.
  @Test func aChangeLeftWhileTheReferenceLetsGoIsDeliveredByItsThread() async throws {
    for _ in 0..<Self.attempts {
      let released = try await Self.releasedTransaction()
      defer { released.token.cancel() }
      // The lock is free: another process writes, after the transaction's refresh. Its
      // delivery finds the transaction releasing, and leaves the change to it.
      let set = ChildProcess.run(DemoProcess.demoExecutable.path, ["set", "--file", released.path, "2"])
      try #require(set.status == 0, "\(set.output)")
      #expect(released.file.deferToTransaction())

      released.transaction.resumeDeliveries()
      // The page describes the write: delivered already, on this thread.
      let made = released.delivered.changes
      let isMadeHere = made.count == 1 && made[0].event == .replaced && pthread_equal(made[0].thread, pthread_self()) != 0
      if !isMadeHere, await released.delivered.isDisturbed(within: 10) { continue }
      #expect(made.count == 1, "\(made.map(\.event))")
      #expect(made.first?.event == .replaced && made.first.map { pthread_equal($0.thread, pthread_self()) } != 0)
      #expect(!released.file.deferToTransaction())
      return
    }
    Issue.record("every attempt was disturbed by another suite's change to inotify's limits")
  }

  /// A change left to a releasing transaction that the page does not describe (here: nothing
  /// changed that the page shows; a write in place would look the same) goes to the pool as a
  /// write in place, read whatever the handle knows: the thread that lets go never waits for
  /// the path's lock, which another process's `withLock` may hold for as long as its body runs.
  @Test func aChangeThePageDoesNotDescribeIsLeftToThePool() async throws {
    for _ in 0..<Self.attempts {
      let released = try await Self.releasedTransaction()
      defer { released.token.cancel() }
      #expect(released.file.deferToTransaction())
      released.transaction.resumeDeliveries()
      let made = try await released.delivered.arrivals.next(seconds: 60) {
        $0.event == .writtenInPlace || $0.event.isDisturbance
      }
      if made.event.isDisturbance { continue }
      #expect(released.delivered.changes.allSatisfy { pthread_equal($0.thread, pthread_self()) == 0 })
      return
    }
    Issue.record("every attempt was disturbed by another suite's change to inotify's limits")
  }

  /// How many times a test runs its case when the shared watcher disturbs it: another suite
  /// (`WatcherLimitTests`) lowers inotify's limits for the whole machine while it runs, and the
  /// watcher then tells every registration of this process it is unwatched, and later to
  /// resynchronize; the event under test may be absorbed into those.
  private static var attempts: Int { 5 }

  /// One case of the two tests above: a file watched for its direct deliveries only, and a
  /// transaction on it that wrote and released the path's lock, its deliveries not yet resumed.
  /// The caller cancels `token`.
  private struct ReleasedTransaction {
    /// Kept for the case's length: the directory goes with it.
    let directory: TemporaryDirectory
    let path: String
    let file: DiskFile
    let delivered: Deliveries
    let token: WatchToken
    let transaction: DiskFileTransaction
  }

  private static func releasedTransaction() async throws -> ReleasedTransaction {
    let directory = try TemporaryDirectory()
    let path = directory.path("value.json")
    let file = DiskFile.forTesting(FilePath(path))
    let (delivered, token) = watchDeliveriesOnly(path)
    do {
      try await waitUntilWatched(path)
      let transaction = try #require(file.beginTransaction() as? DiskFileTransaction)
      try transaction.commit(.contents(Data("1\n".utf8)))
      transaction.endDeferringDeliveries()
      return ReleasedTransaction(
        directory: directory, path: path, file: file, delivered: delivered, token: token, transaction: transaction
      )
    } catch {
      token.cancel()
      throw error
    }
  }

  /// Registers for the events of the file at `path` that are handed to its registrations
  /// directly (a delivery left to a transaction, made here or on the pool), not those the
  /// reading thread reads (none is admitted), and records each with the thread it came on.
  private static func watchDeliveriesOnly(_ path: String) -> (Deliveries, WatchToken) {
    let delivered = Deliveries()
    let token = DirectoryWatcher.shared.watch(file: FilePath(path), admitting: { _ in false }) { event in
      delivered.record(Delivered(event: event, thread: pthread_self()))
    }
    return (delivered, token)
  }

  private struct Delivered: Sendable {
    let event: FileWatchEvent
    let thread: pthread_t
  }

  /// What a registration was handed, in order.
  private final class Deliveries: Sendable {
    private let list = Mutex<[Delivered]>([])
    /// Each delivery as it comes.
    let arrivals: AsyncQueue<Delivered>
    private let arrived: AsyncStream<Delivered>.Continuation
    /// The deliveries that say the watch was lost or must be caught up with.
    private let disturbances: AsyncQueue<Delivered>
    private let disturbed: AsyncStream<Delivered>.Continuation

    init() {
      let (arrivals, arrived) = AsyncStream<Delivered>.makeStream()
      let (disturbances, disturbed) = AsyncStream<Delivered>.makeStream()
      self.arrivals = AsyncQueue(arrivals)
      self.arrived = arrived
      self.disturbances = AsyncQueue(disturbances)
      self.disturbed = disturbed
    }

    func record(_ delivered: Delivered) {
      list.withLock { $0.append(delivered) }
      arrived.yield(delivered)
      if delivered.event.isDisturbance { disturbed.yield(delivered) }
    }

    /// The deliveries of changes so far, disturbances left out.
    var changes: [Delivered] {
      list.withLock { $0.filter { !$0.event.isDisturbance } }
    }

    /// Whether a disturbance was delivered, or is within `seconds` (one posted before a
    /// change absorbs it, and arrives in its place).
    func isDisturbed(within seconds: Double) async -> Bool {
      (try? await disturbances.next(seconds: seconds)) != nil
    }
  }
}

extension FileWatchEvent {
  /// Whether it says the watch was lost or must be caught up with, rather than a change.
  fileprivate var isDisturbance: Bool {
    switch self {
    case .resynchronize, .unwatched: true
    case .replaced, .writtenInPlace: false
    }
  }
}
