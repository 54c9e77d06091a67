import Foundation

/// The threads that run the ``InotifyReader`` and registrations' deliveries: a pool of its own
/// that grows when every thread is busy, so that a slow handle (a decode, an observer that takes
/// 100 ms) holds up only itself. (A global Dispatch queue does not do that on Linux: it notices
/// a blocked worker only tens of milliseconds later, and Swift's tasks share it.)
///
/// ## The reading thread
///
/// One thread at a time, the *reading thread*, runs the reader (``InotifyReader/readEvents()``).
/// When an event leaves registrations to deliver, the reading thread hands the reader to another
/// thread (an idle one, or a new one) and delivers the first itself, on the thread that read the
/// event: a change reaches its handle without waiting for another thread to wake, and a slow
/// handle still holds up nobody, since someone else reads meanwhile. Other deliveries wait in a
/// queue that idle threads take from.
///
/// Threads beyond the first leave after `idleLifetime` without work; there are never more than
/// `maximumThreads`.
///
/// ## Scheduling
///
/// In a program under the kernel's default policy, the threads run under its batch policy
/// (`SCHED_BATCH`), which shares the CPU alike but does not preempt on waking. Every write
/// wakes the reader of every process that watches the directory; woken under the default
/// policy, it preempts whatever runs on its core, and in a busy program that is often another
/// process's writer holding the file's lock, which every process then waits for. (Measured at
/// four processes, two alternations of eight rounds: 17–20 % more increments per second and
/// 13–17 % less CPU per increment; a change reaches another process no later.) The program's
/// code that runs on these threads (observers with ``SharedChangeDelivery/immediate``, a
/// ``SharedChangeDelivery``'s `schedule`, a subscriber's callbacks, an `AsyncSequence`'s
/// continuation) and the library's own Dispatch calls run under the default policy again
/// (``CurrentThread/withDefaultScheduling(_:)``): a thread started from a thread inherits its
/// policy. Every call out of the library on these threads must be wrapped so. Decoders and a
/// value's `==`, run while a change is taken in under the reference's lock, run under the batch
/// policy.
///
/// `@unchecked Sendable`: every mutable property is only touched with `lock` held.
final class DeliveryThreads: @unchecked Sendable {
  /// The threads every registration uses.
  static let shared = DeliveryThreads()

  /// The name of each of the threads, for Foundation and for the kernel (`/proc/PID/task/*/comm`
  /// keeps 15 bytes).
  static let threadName = "SharedState"

  /// An `NSCondition`, not Synchronization's `Mutex`: idle threads wait on it for work, with a
  /// deadline, and `Mutex` has no condition to wait on.
  private let lock = NSCondition()
  private var pending: [FileWatchRegistration] = []
  private var pendingStart = 0
  private var threads = 0
  private var idle = 0
  /// Signals sent to idle threads that none has taken yet.
  private var wakeups = 0
  /// One turn of the reader; `nil` until the watcher starts reading.
  private var readEvents: (@Sendable () -> [FileWatchRegistration])?
  /// Whether the reader waits for a thread to run it.
  private var readerAwaitsThread = false
  private let idleLifetime: TimeInterval
  private let maximumThreads: Int
  /// Whether the threads run under the batch policy: the program (its main thread) runs under
  /// the default one, not a real-time one or the batch one it would want kept.
  private let batchesThreads = CurrentThread.programSchedulesByDefault

  init(idleLifetime: TimeInterval = 10, maximumThreads: Int = 256) {
    self.idleLifetime = idleLifetime
    self.maximumThreads = maximumThreads
  }

  /// Has the threads run the reader from now on, one thread at a time.
  ///
  /// - Parameter readEvents: One turn of the reader (``InotifyReader/readEvents()``): waits for
  ///   the next event (or for something else to do, such as watching a new directory), acts on
  ///   it, and returns the registrations whose events the caller must now deliver (see
  ///   ``FileWatchRegistration/enqueue(_:)``). Only one thread at a time calls it.
  func startReading(_ readEvents: @escaping @Sendable () -> [FileWatchRegistration]) {
    let wake = lock.withLock { () -> Wake in
      precondition(self.readEvents == nil, "the watcher's events are read once per process")
      self.readEvents = readEvents
      readerAwaitsThread = true
      return wakeOne(evenAboveMaximum: true)
    }
    wake.perform(self)
  }

  /// Runs `registration.deliverPending()` on one of the threads, soon.
  func schedule(_ registration: FileWatchRegistration) {
    let wake = lock.withLock { () -> Wake in
      pending.append(registration)
      return wakeOne(evenAboveMaximum: false)
    }
    wake.perform(self)
  }

  /// What to do, once `lock` is released, so that one more thread comes to work.
  private enum Wake {
    case none, signal, start

    /// Signals after the lock is released: a thread woken while the lock is still held would
    /// only block on it again at once (two more switches, on a machine where each costs tens
    /// of microseconds).
    func perform(_ threads: DeliveryThreads) {
      switch self {
      case .none: break
      case .signal: threads.lock.signal()
      case .start: threads.startThread()
      }
    }
  }

  /// Counts a wake-up of an idle thread, or a thread to start; the caller performs it once
  /// `lock` is released. Call with `lock` held.
  private func wakeOne(evenAboveMaximum: Bool) -> Wake {
    if idle > wakeups {
      wakeups += 1
      return .signal
    }
    // The reader never waits for a thread: events would pile up unread.
    guard evenAboveMaximum || threads < maximumThreads else { return .none }
    threads += 1
    return .start
  }

  private func startThread() {
    let thread = Thread { [self] in work() }
    thread.name = Self.threadName
    thread.start()
  }

  private func work() {
    // A program's signal handlers are for its own threads: one run here would end the wait
    // for inotify early, and the program may not expect it on a thread it does not know.
    // (A thread inherits its creator's mask, which is often the main thread's: nothing blocked.)
    try? CurrentThread.blockAsynchronousSignals()
    // The reader's short pauses should last what they say, not the default 50 µs of slack more.
    try? CurrentThread.setTimerSlack(nanoseconds: 1)
    // For `ps`, `top`, `perf`.
    try? CurrentThread.setName(Self.threadName)
    if batchesThreads { try? CurrentThread.setBatchScheduling(true) }
    lock.lock()
    while true {
      // The reader comes first: nothing is read while no thread runs it.
      if readerAwaitsThread, let readEvents {
        readerAwaitsThread = false
        lock.unlock()
        readUntilHandOver(readEvents)
        lock.lock()
        continue
      }
      if pendingStart < pending.count {
        let registration = pending[pendingStart]
        pendingStart += 1
        if pendingStart == pending.count {
          pending.removeAll(keepingCapacity: true)
          pendingStart = 0
        }
        lock.unlock()
        registration.deliverPending()
        lock.lock()
        continue
      }
      idle += 1
      let signaled = lock.wait(until: Date().addingTimeInterval(idleLifetime))
      idle -= 1
      if wakeups > 0 { wakeups -= 1 }
      if !signaled, pendingStart == pending.count, !readerAwaitsThread, threads > 1 {
        threads -= 1
        lock.unlock()
        return
      }
    }
  }

  /// Runs the reader until an event leaves registrations to deliver; then hands the reader on
  /// and delivers the first of them on this thread. When no other thread can take the reader
  /// (none idle, and the pool at its maximum: slow handles hold them all), it queues every
  /// delivery and goes on reading instead, so that the pool never grows past its maximum.
  private func readUntilHandOver(_ readEvents: () -> [FileWatchRegistration]) {
    while true {
      var ready: [FileWatchRegistration] = []
      while ready.isEmpty {
        ready = readEvents()
      }
      let (handsOn, wakes) = lock.withLock { () -> (Bool, [Wake]) in
        // Another thread takes the reader when one can be woken or started.
        let readerWake = wakeOne(evenAboveMaximum: false)
        let handsOn = readerWake != .none
        if handsOn { readerAwaitsThread = true }
        var wakes = [readerWake]
        let queued = handsOn ? ready.dropFirst() : ready[...]
        pending.append(contentsOf: queued)
        wakes += queued.map { _ in wakeOne(evenAboveMaximum: false) }
        return (handsOn, wakes)
      }
      for wake in wakes { wake.perform(self) }
      if handsOn {
        ready[0].deliverPending()
        return
      }
    }
  }
}
