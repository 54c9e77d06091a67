import Synchronization

/// The storage layer's handle on one watch: cancelling it, or releasing it, stops the events.
///
/// The key layer wraps it in the API's `SharedSubscription`; the storage layer knows nothing of
/// that type.
final class WatchToken: Sendable {
  // A `Mutex` keeps it one object: a program may hold thousands.
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  /// A token that runs `cancel` once, when cancelled or released.
  init(_ cancel: @escaping @Sendable () -> Void) {
    onCancel = Mutex(cancel)
  }

  /// A token with nothing to stop.
  static var inert: WatchToken { WatchToken {} }

  /// Stops the events. Later calls do nothing; an event already being delivered may still finish.
  func cancel() {
    let cancel = onCancel.withLock { cancel -> (@Sendable () -> Void)? in
      defer { cancel = nil }
      return cancel
    }
    cancel?()
  }

  deinit {
    cancel()
  }
}
