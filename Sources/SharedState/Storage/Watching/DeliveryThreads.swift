import Foundation

/// The threads that run registrations' deliveries: a pool of its own that grows when every
/// thread is busy, so that a slow handle (a decode, an observer that takes 100 ms) holds up only
/// itself. (A global Dispatch queue does not do that on Linux: it notices a blocked worker only
/// tens of milliseconds later, and Swift's tasks share it.)
///
/// Threads beyond the first leave after `idleLifetime` without work.
///
/// `@unchecked Sendable`: every mutable property is only touched with `lock` held.
final class DeliveryThreads: @unchecked Sendable {
  /// The threads every registration uses.
  static let shared = DeliveryThreads()

  private let lock = NSCondition()
  private var pending: [FileWatchRegistration] = []
  private var pendingStart = 0
  private var threads = 0
  private var idle = 0
  /// Signals sent to idle threads that none has taken yet.
  private var wakeups = 0
  private let idleLifetime: TimeInterval
  private let maximumThreads: Int

  init(idleLifetime: TimeInterval = 10, maximumThreads: Int = 256) {
    self.idleLifetime = idleLifetime
    self.maximumThreads = maximumThreads
  }

  /// Runs `registration.deliverPending()` on one of the threads, soon.
  func schedule(_ registration: FileWatchRegistration) {
    let mustStartThread = lock.withLock { () -> Bool in
      pending.append(registration)
      if idle > wakeups {
        wakeups += 1
        lock.signal()
        return false
      }
      guard threads < maximumThreads else { return false }
      threads += 1
      return true
    }
    if mustStartThread {
      let thread = Thread { [self] in work() }
      thread.name = "SharedState.Delivery"
      thread.start()
    }
  }

  private func work() {
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
      let signaled = lock.wait(until: Date().addingTimeInterval(idleLifetime))
      idle -= 1
      if wakeups > 0 { wakeups -= 1 }
      if !signaled, pendingStart == pending.count, threads > 1 {
        threads -= 1
        lock.unlock()
        return
      }
    }
  }
}
