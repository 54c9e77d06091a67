import CSystemCalls
import SystemPackage

/// A timer that one thread arms and another waits on: arming and disarming wake nobody, and
/// only an expiry does (a `timerfd` on the monotonic clock).
///
/// ``DeliveryThreads`` uses it so that the reading thread can deliver a change itself and still
/// have another thread take over reading, should that delivery last: two system calls when the
/// delivery is quick, where telling a waiting thread each time would cost a hand-over.
///
/// `Sendable`: the descriptor is the kernel's object, and every operation is one system call.
struct OneShotTimer: Sendable {
  private let descriptor: FileDescriptor

  /// Creates a disarmed timer; `nil` when the system has no descriptor to give.
  init?() {
    guard let raw = try? systemCall({ shared_state_timer_create() }) else { return nil }
    descriptor = FileDescriptor(rawValue: raw)
  }

  /// Arms the timer to expire once, `nanoseconds` from now (replacing any earlier setting).
  ///
  /// The corresponding C call is `timerfd_settime`.
  func arm(nanoseconds: UInt64) {
    _ = try? systemCall { shared_state_timer_set(descriptor.rawValue, max(nanoseconds, 1)) }
  }

  /// Disarms the timer: an expiry that has not happened yet will not.
  ///
  /// The corresponding C call is `timerfd_settime` with a zero time.
  func disarm() {
    _ = try? systemCall { shared_state_timer_set(descriptor.rawValue, 0) }
  }

  /// Blocks the calling thread until the timer expires; `false` when the wait failed (it would
  /// fail again at once).
  ///
  /// The corresponding C call is `read` of the timer's descriptor.
  func waitForExpiry() -> Bool {
    (try? systemCall { shared_state_timer_wait(descriptor.rawValue) }) != nil
  }
}
