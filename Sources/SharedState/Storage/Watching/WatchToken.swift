import ConcurrencyExtras

/// The storage layer's handle on one watch: cancelling it, or releasing it, stops the events.
///
/// The key layer wraps it in the API's `SharedSubscription`; the storage layer knows nothing of
/// that type.
final class WatchToken: Sendable {
  private let onCancel: LockIsolated<(@Sendable () -> Void)?>

  /// A token that runs `cancel` once, when cancelled or released.
  init(_ cancel: @escaping @Sendable () -> Void) {
    onCancel = LockIsolated(cancel)
  }

  /// A token with nothing to stop.
  static var inert: WatchToken { WatchToken {} }

  /// Stops the events. Later calls do nothing; an event already being delivered may still finish.
  func cancel() {
    let cancel = onCancel.withValue { cancel -> (@Sendable () -> Void)? in
      defer { cancel = nil }
      return cancel
    }
    cancel?()
  }

  deinit {
    cancel()
  }
}
