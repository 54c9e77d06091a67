import Foundation

/// The threads that run the ``InotifyReader`` and registrations' deliveries: one reading thread,
/// and a pool of its own that grows when every thread is busy, so that a slow handle (a decode,
/// an observer that takes 100 ms) holds up only itself. (A global Dispatch queue does not do that
/// on Linux: it notices a blocked worker only tens of milliseconds later, and Swift's tasks share
/// it.)
///
/// ## The reading thread
///
/// One thread, the *reading thread*, runs the reader (``InotifyReader/readEvents()``) for good,
/// and never a handle: what an event leaves to deliver goes to a queue that the pool's threads
/// take from. Each change costs one hand-over (one thread woken), and the thread that wakes for
/// every write does the same small work each time. (Handing the reader itself on at each change,
/// so that the thread that read the event could deliver it, cost a hand-over too, and a second
/// wait on the pool's condition per change.)
///
/// Threads of the pool beyond the first leave after `idleLifetime` without work; there are never
/// more than `maximumThreads` of them.
///
/// ## Scheduling
///
/// In a program under the kernel's default policy, the reading thread runs under its batch
/// policy (`SCHED_BATCH`), set once when it starts, which shares the CPU alike but does not
/// preempt on waking. Every write wakes the reader of every process that watches the directory;
/// woken under the default policy, it preempts whatever runs on its core, and in a busy program
/// that is often another process's writer holding the file's lock, which every process then
/// waits for. (Measured at four processes that each write and watch the others, three
/// alternations: 36–45 µs of CPU per increment with the reading thread under the batch policy,
/// 45–50 µs under the default one.) The pool's threads, which run the program's code (observers
/// with ``SharedChangeDelivery/immediate``, a ``SharedChangeDelivery``'s `schedule`, a
/// subscriber's callbacks, an `AsyncSequence`'s continuation), keep the program's policy: no
/// thread changes its policy per change (switching around every delivery cost two system calls
/// per change). The reading thread's rare calls that may start threads (Dispatch) are wrapped in
/// ``CurrentThread/withDefaultScheduling(_:)``, since a thread started from a thread inherits
/// its policy.
///
/// `@unchecked Sendable`: every mutable property is only touched with `lock` held.
final class DeliveryThreads: @unchecked Sendable {
  /// The threads every registration uses.
  static let shared = DeliveryThreads()

  /// The name of each of the threads, for Foundation and for the kernel (`/proc/PID/task/*/comm`
  /// keeps 15 bytes).
  static let threadName = "SharedState"

  /// Guards the properties below. Not an `NSCondition`: a thread woken from a condition's wait
  /// takes its mutex back marked as contended, so that its next unlock is one more system call
  /// (a `futex` wake for nobody) on every change; idle threads wait on `idleThreads` instead,
  /// with `lock` released.
  private let lock = NSLock()
  /// Signalled once for each wake-up of an idle thread (see `wakeups`).
  private let idleThreads = DispatchSemaphore(value: 0)
  private var pending: [FileWatchRegistration] = []
  private var pendingStart = 0
  private var threads = 0
  private var idle = 0
  /// Signals of `idleThreads` that no thread has taken yet.
  private var wakeups = 0
  /// Whether the reading thread was started.
  private var isReading = false
  private let idleLifetime: TimeInterval
  private let maximumThreads: Int
  /// Whether the reading thread runs under the batch policy: the program (its main thread) runs
  /// under the default one, not a real-time one or the batch one it would want kept.
  private let batchesReader = CurrentThread.programSchedulesByDefault

  init(idleLifetime: TimeInterval = 10, maximumThreads: Int = 256) {
    self.idleLifetime = idleLifetime
    self.maximumThreads = maximumThreads
  }

  /// Starts the reading thread, which runs the reader from now on.
  ///
  /// - Parameter readEvents: One turn of the reader (``InotifyReader/readEvents()``): waits for
  ///   the next event (or for something else to do, such as watching a new directory), acts on
  ///   it, and returns the registrations whose events must now be delivered (see
  ///   ``FileWatchRegistration/enqueue(_:)``). Only the reading thread calls it.
  func startReading(_ readEvents: @escaping @Sendable () -> [FileWatchRegistration]) {
    lock.withLock {
      precondition(!isReading, "the watcher's events are read once per process")
      isReading = true
    }
    let thread = Thread { [self] in read(readEvents) }
    thread.name = Self.threadName
    thread.start()
  }

  /// Runs `registration.deliverPending()` on one of the threads, soon.
  func schedule(_ registration: FileWatchRegistration) {
    let wake = lock.withLock { () -> Wake in
      pending.append(registration)
      return wakeOne()
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
      case .signal: threads.idleThreads.signal()
      case .start: threads.startThread()
      }
    }
  }

  /// Counts a wake-up of an idle thread, or a thread to start; the caller performs it once
  /// `lock` is released. Call with `lock` held.
  private func wakeOne() -> Wake {
    if idle > wakeups {
      wakeups += 1
      return .signal
    }
    guard threads < maximumThreads else { return .none }
    threads += 1
    return .start
  }

  private func startThread() {
    let thread = Thread { [self] in work() }
    thread.name = Self.threadName
    thread.start()
  }

  /// What every thread of its own does first.
  private func prepareThread() {
    // A program's signal handlers are for its own threads: one run here would end the wait
    // for inotify early, and the program may not expect it on a thread it does not know.
    // (A thread inherits its creator's mask, which is often the main thread's: nothing blocked.)
    try? CurrentThread.blockAsynchronousSignals()
    // The reader's short pauses should last what they say, not the default 50 µs of slack more.
    try? CurrentThread.setTimerSlack(nanoseconds: 1)
    // For `ps`, `top`, `perf`.
    try? CurrentThread.setName(Self.threadName)
  }

  /// The reading thread: runs the reader, and queues for the pool what each turn leaves to
  /// deliver. When no thread of the pool can take a delivery (all busy with slow handles, and
  /// the pool at its maximum), it waits in the queue, and the reading goes on.
  private func read(_ readEvents: () -> [FileWatchRegistration]) {
    prepareThread()
    if batchesReader { try? CurrentThread.setBatchScheduling(true) }
    while true {
      let ready = readEvents()
      guard !ready.isEmpty else { continue }
      let wakes = lock.withLock { () -> [Wake] in
        pending.append(contentsOf: ready)
        return ready.map { _ in wakeOne() }
      }
      for wake in wakes { wake.perform(self) }
    }
  }

  /// A thread of the pool: delivers what waits in the queue, then waits for more.
  private func work() {
    prepareThread()
    // Started by the reading thread, it inherited the batch policy: back to the program's, once.
    if batchesReader { try? CurrentThread.setBatchScheduling(false) }
    lock.lock()
    while true {
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
      lock.unlock()
      let signaled = idleThreads.wait(timeout: .now() + idleLifetime) == .success
      lock.lock()
      idle -= 1
      // A signal that came after the wait timed out is taken by the next wait, at once.
      if signaled, wakeups > 0 { wakeups -= 1 }
      if !signaled, pendingStart == pending.count, threads > 1 {
        threads -= 1
        lock.unlock()
        return
      }
    }
  }
}
