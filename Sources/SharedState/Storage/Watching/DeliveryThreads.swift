import CSystemCalls
import Foundation

/// The threads that read the watcher's events and run registrations' deliveries: a pool of its
/// own that grows when every thread is busy, so that a slow handle (a decode, an observer that
/// takes 100 ms) holds up only itself. (A global Dispatch queue does not do that on Linux: it
/// notices a blocked worker only tens of milliseconds later, and Swift's tasks share it.)
///
/// ## Leader and followers
///
/// One thread at a time, the *leader*, reads events (``WatchReading/readEvents()``). When an
/// event leaves registrations to deliver, the leader hands the reading to another thread (an
/// idle one, or a new one) and delivers the first itself, on the thread that read the event:
/// a change reaches its handle without waiting for another thread to wake, and a slow handle
/// still holds up nobody, since someone else reads meanwhile. Other deliveries wait in a queue
/// that idle threads take from.
///
/// Threads beyond the first leave after `idleLifetime` without work; there are never more than
/// `maximumThreads`.
///
/// `@unchecked Sendable`: every mutable property is only touched with `lock` held.
final class DeliveryThreads: @unchecked Sendable {
  /// The threads every registration uses.
  static let shared = DeliveryThreads()

  /// The name of each of the threads, for Foundation and for the kernel (`/proc/PID/task/*/comm`
  /// keeps 15 bytes).
  static let threadName = "SharedState"

  private let lock = NSCondition()
  private var pending: [FileWatchRegistration] = []
  private var pendingStart = 0
  private var threads = 0
  private var idle = 0
  /// Signals sent to idle threads that none has taken yet.
  private var wakeups = 0
  /// What the leader runs; `nil` until the watcher starts reading.
  private var reading: (any WatchReading)?
  /// Whether the reading waits for a thread to take it.
  private var isReadingVacant = false
  private let idleLifetime: TimeInterval
  private let maximumThreads: Int

  init(idleLifetime: TimeInterval = 10, maximumThreads: Int = 256) {
    self.idleLifetime = idleLifetime
    self.maximumThreads = maximumThreads
  }

  /// Has the threads read events with `reading`, one thread at a time, from now on.
  func startReading(_ reading: any WatchReading) {
    let wake = lock.withLock { () -> Wake in
      precondition(self.reading == nil, "the watcher's events are read once per process")
      self.reading = reading
      isReadingVacant = true
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
    // The reading never waits for a thread: events would pile up unread.
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
    _ = shared_state_block_asynchronous_signals()
    // The watcher's short pauses (a writer finishing its page) should last what they say, not
    // the default 50 µs of slack more.
    _ = shared_state_set_timer_slack(1)
    // Foundation does not pass `Thread.name` to the kernel here: name it for `ps`, `top`, `perf`.
    _ = shared_state_name_thread(Self.threadName)
    lock.lock()
    while true {
      // Reading comes first: nothing is read while nobody leads.
      if isReadingVacant, let reading {
        isReadingVacant = false
        lock.unlock()
        lead(reading)
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
      if !signaled, pendingStart == pending.count, !isReadingVacant, threads > 1 {
        threads -= 1
        lock.unlock()
        return
      }
    }
  }

  /// Reads events until one leaves registrations to deliver; then hands the reading on and
  /// delivers the first of them on this thread. When no other thread can take the reading (none
  /// idle, and the pool at its maximum: slow handles hold them all), it queues every delivery
  /// and goes on reading instead, so that the pool never grows past its maximum.
  private func lead(_ reading: any WatchReading) {
    while true {
      var ready: [FileWatchRegistration] = []
      while ready.isEmpty {
        ready = reading.readEvents()
      }
      let (handsOn, wakes) = lock.withLock { () -> (Bool, [Wake]) in
        // Another thread takes the reading when one can be woken or started.
        let readingWake = wakeOne(evenAboveMaximum: false)
        let handsOn = readingWake != .none
        if handsOn { isReadingVacant = true }
        var wakes = [readingWake]
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

/// The reading of the watcher's events, which ``DeliveryThreads`` hands from thread to thread
/// (see ``WatchOwner``).
protocol WatchReading: AnyObject, Sendable {
  /// Waits for the next event (or for something else to do, such as watching a new
  /// directory), acts on it, and returns the registrations whose events the caller must now
  /// deliver (see ``FileWatchRegistration/enqueue(_:)``). Only one thread at a time calls it.
  func readEvents() -> [FileWatchRegistration]
}
