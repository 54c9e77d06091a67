import Synchronization

/// The storage layer's handle on one watch: cancelling it, or releasing it, stops the events.
///
/// The key layer wraps it in the API's `SharedSubscription`; the storage layer knows nothing of
/// that type.
final class WatchToken: Sendable {
  /// What cancelling does: a closure, or (without one, for the watcher's own registrations, of
  /// which a program may hold thousands) unregistering.
  private enum Stop {
    case run(@Sendable () -> Void)
    case unregister(FileWatchRegistration)
  }

  // A `Mutex` keeps it one object.
  private let onCancel: Mutex<Stop?>

  /// A token that runs `cancel` once, when cancelled or released.
  init(_ cancel: @escaping @Sendable () -> Void) {
    onCancel = Mutex(.run(cancel))
  }

  /// A token that unregisters `registration` from its watcher once, when cancelled or released.
  init(unregistering registration: FileWatchRegistration) {
    onCancel = Mutex(.unregister(registration))
  }

  /// A token with nothing to stop.
  static var inert: WatchToken { WatchToken {} }

  /// Stops the events. Later calls do nothing; an event already being delivered may still finish.
  func cancel() {
    let stop = onCancel.withLock { stop -> Stop? in
      defer { stop = nil }
      return stop
    }
    switch stop {
    case let .run(cancel): cancel()
    case let .unregister(registration): registration.watcher.unregister(registration)
    case nil: break
    }
  }

  deinit {
    cancel()
  }
}
