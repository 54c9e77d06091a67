import CTestSupport
import Foundation
import Synchronization
import SystemPackage
import Testing

@testable import SharedState

/// The pool that runs the inotify reader and delivers what it reads.
@Suite("Watching: delivery threads")
struct DeliveryThreadsTests {
  @Test func slowDeliveriesNeverTakeMoreThreadsThanTheMaximum() async throws {
    let pool = DeliveryThreads(idleLifetime: 60, maximumThreads: 3)
    let release = DispatchSemaphore(value: 0)
    let deliveries = Mutex((running: 0, most: 0, finished: 0))
    let events = TwelveEvents { _ in
      deliveries.withLock {
        $0.running += 1
        $0.most = max($0.most, $0.running)
      }
      release.wait()
      deliveries.withLock {
        $0.running -= 1
        $0.finished += 1
      }
    }
    pool.startReading { events.readEvents() }
    // Every event read, each delivery blocked until released: the reading goes on, and the
    // deliveries wait for a thread instead of each taking a new one.
    try await waitUntil { events.allRead }
    try await waitUntil { deliveries.withLock { $0.running } >= 2 }
    #expect(deliveries.withLock { $0.most } <= 3)
    for _ in 0..<12 { release.signal() }
    try await waitUntil { deliveries.withLock { $0.finished } == 12 }
    #expect(deliveries.withLock { $0.most } <= 3)
  }

  /// A quick delivery runs on the thread that read its event, right after reading it: a change
  /// wakes one thread, not a reader and then another to deliver.
  @Test func theReadingThreadDeliversWhatItReadItself() async throws {
    // No take-over however loaded the machine: each delivery stays where it was read.
    let pool = DeliveryThreads(idleLifetime: 60, maximumThreads: 8, takeoverDelay: .seconds(60))
    let deliveringThreads = Mutex<[pthread_t]>([])
    let readingThreads = Mutex<[pthread_t]>([])
    let events = TwelveEvents { _ in
      deliveringThreads.withLock { $0.append(pthread_self()) }
    }
    pool.startReading {
      readingThreads.withLock { $0.append(pthread_self()) }
      return events.readEvents()
    }
    try await waitUntil { deliveringThreads.withLock { $0.count } == 12 }
    let readers = Set(readingThreads.withLock { $0 }.map { UInt($0) })
    let deliverers = Set(deliveringThreads.withLock { $0 }.map { UInt($0) })
    #expect(readers.count == 1, "one thread read every event")
    #expect(deliverers == readers, "the deliveries ran on \(deliverers.count) threads other than the reading one")
  }

  /// A delivery that lasts on the reading thread is taken over: another thread reads on, and
  /// the other files' deliveries do not wait for it.
  @Test func aDeliveryThatLastsHandsTheReadingOver() async throws {
    let pool = DeliveryThreads(idleLifetime: 60, maximumThreads: 8, takeoverDelay: .milliseconds(5))
    let release = DispatchSemaphore(value: 0)
    let delivered = Mutex(0)
    let isFirst = Mutex(true)
    let events = TwelveEvents { _ in
      let blocks = isFirst.withLock { isFirst in
        defer { isFirst = false }
        return isFirst
      }
      if blocks { _ = release.wait(timeout: .now() + 60) }
      delivered.withLock { $0 += 1 }
    }
    pool.startReading { events.readEvents() }
    // The first delivery blocks until released; the eleven others arrive meanwhile.
    try await waitUntil { delivered.withLock { $0 } == 11 }
    release.signal()
    try await waitUntil { delivered.withLock { $0 } == 12 }
  }

  /// How a delivery of the only file a process watches comes to need the reading thread.
  enum ReaderWanted: CaseIterable, Sendable {
    /// Someone wakes the reader (a directory to watch, say).
    case woken
    /// A second file is watched.
    case secondFile
  }

  /// A process that watches one file has no other handle to hold up: a delivery that lasts is
  /// not taken over (no timer is armed for it) until someone needs the reading thread; then it is,
  /// `takeoverDelay` later at most. (The eleven other registrations of the stand-in reader are
  /// not watched files: they show whether anyone read on.)
  @Test(arguments: ReaderWanted.allCases)
  func aDeliveryOfTheOnlyFileWatchedIsTakenOverOnlyWhenTheReaderIsWanted(_ wanted: ReaderWanted) async throws {
    let pool = DeliveryThreads(idleLifetime: 60, maximumThreads: 8, takeoverDelay: .milliseconds(5))
    pool.watchedFilesChanged(count: 1)
    let release = DispatchSemaphore(value: 0)
    let delivered = Mutex(0)
    let isFirst = Mutex(true)
    let (blocking, block) = AsyncStream<Void>.makeStream()
    let events = TwelveEvents { _ in
      let blocks = isFirst.withLock { isFirst in
        defer { isFirst = false }
        return isFirst
      }
      if blocks {
        block.yield()
        _ = release.wait(timeout: .now() + 60)
      }
      delivered.withLock { $0 += 1 }
    }
    defer { release.signal() }
    pool.startReading { events.readEvents() }
    _ = try await AsyncQueue(blocking).next()
    // Forty times the delay: an armed timer would have handed the reading over long before.
    try await Task.sleep(for: .milliseconds(200))
    #expect(delivered.withLock { $0 } == 0, "the reading was handed over with nobody wanting it")
    switch wanted {
    case .woken: pool.readerIsWanted()
    case .secondFile: pool.watchedFilesChanged(count: 2)
    }
    try await waitUntil { delivered.withLock { $0 } == 11 }
  }

  @Test func itsThreadsLeaveTheProgramsSignalsToTheProgramsThreads() async throws {
    @Sendable func threads() -> Set<String> {
      let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
      return Set(tasks.filter { task in
        let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
        return name?.trimmingCharacters(in: .newlines) == DeliveryThreads.threadName
      })
    }
    let before = threads()
    // Started from a thread that takes every signal, as a program's main thread does: a new
    // thread inherits its creator's mask.
    let pool = DeliveryThreads(idleLifetime: 60, maximumThreads: 2)
    var previous = sigset_t()
    try #require(test_support_unblock_all_signals(&previous) == 0)
    let events = TwelveEvents { _ in }
    pool.startReading { events.readEvents() }
    try #require(test_support_set_signal_mask(&previous) == 0)
    try await waitUntil { !threads().subtracting(before).isEmpty }
    for task in threads().subtracting(before) {
      let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
      let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
      let blocked = try #require(UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16))
      // Signals programs handle, each blocked here (bit n - 1 for signal n); faults are not.
      for signal in [SIGINT, SIGTERM, SIGCHLD, SIGWINCH, SIGUSR1, SIGURG] {
        #expect(blocked & (1 << UInt64(signal - 1)) != 0, "signal \(signal) reaches a delivery thread")
      }
      #expect(blocked & (1 << UInt64(SIGSEGV - 1)) == 0)
    }
  }

  /// Checks `condition` every millisecond until it holds; fails after 20 s.
  private func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
    try await withTimeout(seconds: 20) {
      while !condition() { try await Task.sleep(for: .milliseconds(1)) }
    }
  }
}

/// A stand-in for the inotify reader that yields one event for each of twelve files, each of
/// which a slow handle delivers, then waits for good (the pool's reading thread stays blocked in
/// it, as the real reader waits for inotify).
private final class TwelveEvents: Sendable {
  private let registrations: [FileWatchRegistration]
  private let handedOut = Mutex(0)
  private let never = DispatchSemaphore(value: 0)

  init(onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    let watcher = DirectoryWatcher()
    registrations = (0..<12).map { index in
      FileWatchRegistration(
        watcher: watcher, directory: FilePath("/nowhere"), name: "file\(index)", admits: nil, onEvent: onEvent
      )
    }
  }

  var allRead: Bool { handedOut.withLock { $0 } == registrations.count }

  func readEvents() -> ReadyRegistrations {
    let next = handedOut.withLock { count -> FileWatchRegistration? in
      guard count < registrations.count else { return nil }
      defer { count += 1 }
      return registrations[count]
    }
    guard let next else {
      never.wait()
      return []
    }
    return next.enqueue(.replaced) ? [next] : []
  }
}
