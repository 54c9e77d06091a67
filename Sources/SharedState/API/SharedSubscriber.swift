/// The channel through which a key's subscription delivers changes made elsewhere.
public struct SharedSubscriber<Value>: Sendable {
  private let callback: (@Sendable (Result<Value?, any Error>) -> Void)?
  private let onLoading: (@Sendable (Bool) -> Void)?
  /// The reference that receives, for the subscribers the reference layer makes: one object,
  /// held weakly, costs less than three closures (a program may open thousands of keys). Held
  /// as its class: it is the only receiver of its kind, and calls need no witness table.
  private weak var reference: SharedReference<Value>?

  /// Creates a subscriber.
  ///
  /// The reference layer creates subscribers; create one yourself to test a custom key.
  ///
  /// - Parameters:
  ///   - callback: Receives each new value, `nil` to return to the initial value, or an error.
  ///   - onLoading: Receives the key's loading state.
  public init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void = { _ in }
  ) {
    self.callback = callback
    self.onLoading = onLoading
  }

  /// Creates a subscriber for a reference, which can also run a computation under its own lock.
  /// It holds the reference weakly: a released reference receives nothing.
  init(_ reference: SharedReference<Value>) {
    callback = nil
    onLoading = nil
    self.reference = reference
  }

  /// Delivers a new value.
  public func yield(_ value: Value) {
    yield(with: .success(value))
  }

  /// Says the stored value is gone, so the shared value returns to its initial value.
  public func yieldReturningInitialValue() {
    yield(with: .success(nil))
  }

  /// Delivers an error: the shared value keeps what it had and reports it as its
  /// ``Shared/loadError``.
  public func yield(throwing error: any Error) {
    yield(with: .failure(error))
  }

  /// Delivers a result: a value, `nil` for the initial value, or an error.
  public func yield(with result: Result<Value?, any Error>) {
    if let callback {
      callback(result)
    } else {
      reference?.receive(result)
    }
  }

  /// Delivers what `compute` returns, computed while the receiving reference holds its lock, so
  /// that a value read from storage cannot overtake a write the reference makes meanwhile.
  /// `compute` returns `nil` when there is nothing new.
  ///
  /// The library's own keys deliver every change from another process through here: the
  /// reference's observers then hear of it through ``SharedChangeDelivery/default``. A change
  /// yielded through ``yield(with:)`` reaches them on the yielding thread, as with
  /// swift-sharing: a custom key chooses its thread itself.
  package func yieldLatest(_ compute: () -> Result<Value?, any Error>?) {
    if callback == nil {
      reference?.receiveUnderLock(compute)
    } else if let result = compute() {
      yield(with: result)
    }
  }

  /// As ``yieldLatest(_:)``, for a change this process made through a way of its own (an
  /// ``AppStorageSuite``'s `set(_:forKey:)`, say): the reference's observers hear of it on this
  /// thread before this returns, as they do of a `withLock`, not through
  /// ``SharedChangeDelivery/default``.
  package func yieldLatestOwnChange(_ compute: () -> Result<Value?, any Error>?) {
    if callback == nil {
      reference?.receiveOwnChangeUnderLock(compute)
    } else if let result = compute() {
      yield(with: result)
    }
  }

  /// Tells readers whether the key is loading, through ``Shared/isLoading``.
  public func yieldLoading(_ isLoading: Bool = true) {
    if let onLoading {
      onLoading(isLoading)
    } else {
      reference?.receiveLoading(isLoading)
    }
  }
}
