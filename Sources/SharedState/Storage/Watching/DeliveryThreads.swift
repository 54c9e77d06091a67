import Foundation

/// The threads that run the ``InotifyReader`` and registrations' deliveries: one reading thread,
/// one thread standing by, and a pool that grows when every thread is busy, so that a slow handle
/// (a decode, an observer that takes 100 ms) holds up only itself. (A global Dispatch queue does
/// not do that on Linux: it notices a blocked worker only tens of milliseconds later, and Swift's
/// tasks share it.)
///
/// ## The reading thread delivers
///
/// The *reading thread* runs the reader (``InotifyReader/readEvents()``) and then delivers what
/// the turn left to deliver itself, so that a change costs one thread woken, as it does a
/// program written in C. Before delivering, it arms a timer (``OneShotTimer``) that the
/// *standing-by* thread waits on; after, it disarms it. Arming and disarming wake nobody. Should
/// a delivery outlast `takeoverDelay`, the timer wakes the standing-by thread, which becomes the
/// reading thread at once: the slow delivery holds up other handles for `takeoverDelay` at
/// most, and its own (what was left to deliver in the same turn goes to the pool). The thread
/// that was slow stands by once it is done (at most two threads stand by: no thread is started
/// and ended per slow delivery). (Handing every delivery to the pool cost two `futex` calls
/// and a second thread woken per change.)
///
/// A process that watches one file only (a program that follows one setting) has no other
/// handle to hold up: its deliveries arm no timer, two system calls fewer per change. Should
/// someone need the reading thread during such a delivery (a second file watched, a directory
/// to watch, anything that wakes the reader: ``readerIsWanted()``), the timer is armed then, and
/// the standing-by thread takes over `takeoverDelay` later at most.
///
/// The pool's threads deliver what does not come from the reader (``schedule(_:)``: a
/// resynchronize, a watch that failed) and the rest of a turn whose delivery was slow; a thread
/// whose delivery was taken over helps with that queue before it stands by. The pool's threads
/// leave after `idleLifetime` without work. There are never more than `maximumThreads` threads
/// in all: once every one is busy with a slow delivery, nobody stands by, and the reading
/// thread queues what it reads for the first thread that is free, and reads on.
///
/// ## Scheduling
///
/// Every thread keeps the program's scheduling policy and never switches it: the reading thread
/// runs the program's code (observers with ``SharedChangeDelivery/immediate``, a
/// ``SharedChangeDelivery``'s `schedule`, a subscriber's callbacks, Dispatch, which may start
/// threads that inherit the policy of the thread that starts them). The batch policy
/// (`SCHED_BATCH`), under which a woken thread does not preempt the one running on its core,
/// saved CPU where processes increment one key and watch each other (four processes, three
/// alternations in one run: 36–40 µs of CPU per increment with the reading thread under it,
/// 45–59 µs without), but keeping it would cost two `sched_setscheduler` calls around every
/// delivery that runs the program's code, in every watching process; the C floors
/// (`scripts/bench/*.c`) wait under the default policy too.

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
  /// Every thread of this type's: the reading thread, those standing by, the pool's.
  private var threads = 0
  private var idle = 0
  /// Signals of `idleThreads` that no thread has taken yet.
  private var wakeups = 0
  /// One turn of the reader, once the reading thread was started.
  private var readEvents: (@Sendable () -> ReadyRegistrations)?
  /// Counts the hand-overs of reading: the reading thread is the one whose turn this is.
  private var readingTurn = 0
  /// The turn of the reading thread while it delivers; `nil` otherwise.
  private var deliveringTurn: Int?
  /// Whether `takeover` is armed for the delivery under way.
  private var isTimed = false
  /// Whether a delivery of the reading thread may hold up another handle's: the process watches
  /// more than one file (see ``watchedFilesChanged(count:)``).
  private var mayHoldUpOthers = true
  /// Threads waiting on `takeover`.
  private var standingBy = 0
  /// Wakes the standing-by thread when a delivery of the reading thread lasts; `nil` when the
  /// system gave no timer, and then the pool delivers every change.
  private let takeover = OneShotTimer()
  /// How long a delivery of the reading thread may last before another thread reads on.
  private let takeoverDelay: UInt64
  private let idleLifetime: TimeInterval
  private let maximumThreads: Int

  init(idleLifetime: TimeInterval = 10, maximumThreads: Int = 256, takeoverDelay: Duration = .milliseconds(5)) {
    self.idleLifetime = idleLifetime
    self.maximumThreads = maximumThreads
    let (seconds, attoseconds) = takeoverDelay.components
    self.takeoverDelay = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
  }

  /// Starts the reading thread, which runs the reader from now on, and the thread that stands by
  /// to take over.
  ///
  /// - Parameter readEvents: One turn of the reader (``InotifyReader/readEvents()``): waits for
  ///   the next event (or for something else to do, such as watching a new directory), acts on
  ///   it, and returns the registrations whose events must now be delivered (see
  ///   ``FileWatchRegistration/enqueue(_:)``). Only the reading thread calls it.
  func startReading(_ readEvents: @escaping @Sendable () -> ReadyRegistrations) {
    lock.withLock {
      precondition(self.readEvents == nil, "the watcher's events are read once per process")
      self.readEvents = readEvents
      threads += takeover == nil ? 1 : 2
      if takeover != nil { standingBy = 1 }
    }
    startThread { [self] in run(readEvents, as: .reading) }
    if takeover != nil { startThread { [self] in run(readEvents, as: .standingBy) } }
  }

  /// Says how many files the process watches (its registrations): with one, a delivery of the
  /// reading thread holds up no other handle's, and arms no timer until someone needs the
  /// reading thread (see ``readerIsWanted()``).
  func watchedFilesChanged(count: Int) {
    lock.withLock {
      mayHoldUpOthers = count > 1
      if mayHoldUpOthers { armIfDeliveringUntimed() }
    }
  }

  /// Someone needs the reading thread (the reader is being woken): a delivery under way that
  /// armed no timer arms it now, so that the standing-by thread takes over `takeoverDelay` later
  /// at most.
  func readerIsWanted() {
    lock.withLock { armIfDeliveringUntimed() }
  }

  /// Call with `lock` held. (Armed under it: a rare call, and the delivery's end, which disarms,
  /// then finds it armed.)
  private func armIfDeliveringUntimed() {
    guard deliveringTurn != nil, !isTimed, let takeover else { return }
    isTimed = true
    takeover.arm(nanoseconds: takeoverDelay)
  }

  /// Runs `registration.deliverPending()` on one of the threads, soon.
  func schedule(_ registration: FileWatchRegistration) {
    queue(CollectionOfOne(registration))
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
      case .start: threads.startThread { [threads] in threads.work() }
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

  private func startThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
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

  /// What a thread of its own (not of the pool) does next.
  private enum Role {
    /// Runs the reader, and delivers what it leaves.
    case reading
    /// Waits for the reading thread's delivery to last.
    case standingBy
    /// Leaves: another thread stands by already.
    case leaving
  }

  /// A thread that reads or stands by, from `role` on.
  private func run(_ readEvents: @escaping @Sendable () -> ReadyRegistrations, as role: Role) {
    prepareThread()
    var role = role
    // The turn this thread reads in, while it does.
    var turn = 0
    while true {
      switch role {
      case .reading:
        let ready = readEvents()
        if !ready.isEmpty, !deliverWhileReading(ready, turn: turn) { role = standByOrLeave() }
      case .standingBy:
        guard let takeover, takeover.waitForExpiry() else {
          lock.withLock {
            standingBy -= 1
            threads -= 1
          }
          return
        }
        if let taken = takeOverIfDeliveryLasts() {
          turn = taken
          role = .reading
        }
      case .leaving:
        return
      }
    }
  }

  /// Delivers `ready` on the reading thread, under the timer that lets the standing-by thread
  /// take over reading; `false` when it did (what was left of `ready` then went to the pool, and
  /// this thread no longer reads).
  private func deliverWhileReading(_ ready: ReadyRegistrations, turn: Int) -> Bool {
    guard let takeover else {
      queue(ready)
      return true
    }
    // With nobody standing by (every thread busy with slow deliveries, and no more allowed), a
    // delivery here could stop the reading: the pool's queue takes it, and the reading goes on.
    let (mayDeliver, isTimed) = lock.withLock { () -> (Bool, Bool) in
      guard standingBy > 0 else { return (false, false) }
      deliveringTurn = turn
      self.isTimed = mayHoldUpOthers || ready.count > 1
      return (true, self.isTimed)
    }
    guard mayDeliver else {
      queue(ready)
      return true
    }
    if isTimed { takeover.arm(nanoseconds: takeoverDelay) }
    var delivered = 0
    var isTakenOver = false
    while delivered < ready.count, !isTakenOver {
      ready[delivered].deliverPending()
      delivered += 1
      if delivered < ready.count { isTakenOver = lock.withLock { readingTurn != turn } }
    }
    // Asked again under the lock that ends the delivery: the standing-by thread may have taken
    // over since the last look, and then only it reads on (and its own deliveries are its own).
    let wasTimed: Bool
    (isTakenOver, wasTimed) = lock.withLock {
      guard readingTurn == turn else { return (true, false) }
      deliveringTurn = nil
      defer { self.isTimed = false }
      return (false, self.isTimed)
    }
    guard isTakenOver else {
      if wasTimed { takeover.disarm() }
      return true
    }
    queue(ready[delivered...])
    return false
  }

  /// After the standing-by thread took over reading: this thread delivers what waits in the
  /// pool's queue (when every thread is busy, nobody else may), then stands by too, unless two
  /// threads already do. (Two: the one that took over started one to stand by in its place, and
  /// the next delivery that lasts will take one of them; a thread that would leave here would be
  /// started again there.)
  private func standByOrLeave() -> Role {
    while true {
      let next = lock.withLock { () -> (FileWatchRegistration?, Role) in
        if let registration = takePending() { return (registration, .leaving) }
        guard standingBy < 2 else {
          threads -= 1
          return (nil, .leaving)
        }
        standingBy += 1
        return (nil, .standingBy)
      }
      guard let registration = next.0 else { return next.1 }
      registration.deliverPending()
    }
  }

  /// At the timer's expiry: the turn this thread reads in from now on, when the reading thread's
  /// delivery still lasts (and a thread is started to stand by in this one's place, when no
  /// other does); `nil` when the expiry came as that delivery ended, and this thread stands by
  /// again. Every thread standing by wakes at an expiry; one takes over.
  private func takeOverIfDeliveryLasts() -> Int? {
    let taken = lock.withLock { () -> (turn: Int, standby: (@Sendable () -> ReadyRegistrations)?)? in
      guard let deliveringTurn, deliveringTurn == readingTurn else { return nil }
      readingTurn += 1
      self.deliveringTurn = nil
      isTimed = false
      standingBy -= 1
      guard standingBy == 0, threads < maximumThreads else { return (readingTurn, nil) }
      standingBy += 1
      threads += 1
      return (readingTurn, readEvents)
    }
    guard let taken else { return nil }
    if let readEvents = taken.standby {
      startThread { [self] in run(readEvents, as: .standingBy) }
    }
    return taken.turn
  }

  /// Queues `registrations` for the pool, waking as many threads.
  private func queue(_ registrations: some Collection<FileWatchRegistration>) {
    guard !registrations.isEmpty else { return }
    let wakes = lock.withLock { () -> [Wake] in
      pending.append(contentsOf: registrations)
      return registrations.map { _ in wakeOne() }
    }
    for wake in wakes { wake.perform(self) }
  }

  /// The first registration waiting in the queue, taken out of it. Call with `lock` held.
  private func takePending() -> FileWatchRegistration? {
    guard pendingStart < pending.count else { return nil }
    let registration = pending[pendingStart]
    pendingStart += 1
    if pendingStart == pending.count {
      pending.removeAll(keepingCapacity: true)
      pendingStart = 0
    }
    return registration
  }

  /// A thread of the pool: delivers what waits in the queue, then waits for more.
  private func work() {
    prepareThread()
    lock.lock()
    while true {
      if let registration = takePending() {
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
