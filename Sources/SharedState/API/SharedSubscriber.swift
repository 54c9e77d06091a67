/// The channel through which a key's subscription delivers changes made elsewhere.
public struct SharedSubscriber<Value>: Sendable {
  private let callback: @Sendable (Result<Value?, any Error>) -> Void
  private let onLoading: @Sendable (Bool) -> Void
  private let deliverUnderLock: (@Sendable (() -> Result<Value?, any Error>?) -> Void)?

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
    deliverUnderLock = nil
  }

  /// Creates a subscriber for a reference that can run a computation under its own lock.
  init(
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void,
    onLoading: @escaping @Sendable (Bool) -> Void,
    deliverUnderLock: @escaping @Sendable (() -> Result<Value?, any Error>?) -> Void
  ) {
    self.callback = callback
    self.onLoading = onLoading
    self.deliverUnderLock = deliverUnderLock
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
    callback(result)
  }

  /// Delivers what `compute` returns, computed while the receiving reference holds its lock, so
  /// that a value read from storage cannot overtake a write the reference makes meanwhile.
  /// `compute` returns `nil` when there is nothing new.
  package func yieldLatest(_ compute: () -> Result<Value?, any Error>?) {
    if let deliverUnderLock {
      deliverUnderLock(compute)
    } else if let result = compute() {
      callback(result)
    }
  }

  /// Tells readers whether the key is loading, through ``Shared/isLoading``.
  public func yieldLoading(_ isLoading: Bool = true) {
    onLoading(isLoading)
  }
}
