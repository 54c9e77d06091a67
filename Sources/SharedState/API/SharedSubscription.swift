import ConcurrencyExtras

/// A handle on a key's subscription: cancelling it, or releasing it, stops the listening.
public final class SharedSubscription: Sendable {
  private let onCancel: LockIsolated<(@Sendable () -> Void)?>

  /// Creates a subscription that runs `cancel` once, when cancelled or released.
  public init(_ cancel: @escaping @Sendable () -> Void) {
    onCancel = LockIsolated(cancel)
  }

  /// A subscription with nothing to stop, for keys whose values change only through the
  /// process's own reference.
  public static var empty: SharedSubscription { SharedSubscription {} }

  /// Stops the subscription. Later calls do nothing.
  public func cancel() {
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
