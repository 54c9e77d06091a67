import Synchronization

/// A handle on a key's subscription: cancelling it, or releasing it, stops the listening.
public final class SharedSubscription: Sendable {
  // A `Mutex` keeps it one object: a program may hold thousands.
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  /// Creates a subscription that runs `cancel` once, when cancelled or released.
  public init(_ cancel: @escaping @Sendable () -> Void) {
    onCancel = Mutex(cancel)
  }

  /// A subscription with nothing to stop, for keys whose values change only through the
  /// process's own reference.
  public static var empty: SharedSubscription { SharedSubscription {} }

  /// Stops the subscription. Later calls do nothing.
  public func cancel() {
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
