/// The channel through which a key's subscription delivers changes made elsewhere.
public struct SharedSubscriber<Value>: Sendable {
  private let callback: @Sendable (Result<Value?, any Error>) -> Void
  private let onLoading: @Sendable (Bool) -> Void

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

  /// Tells readers whether the key is loading, through ``Shared/isLoading``.
  public func yieldLoading(_ isLoading: Bool = true) {
    onLoading(isLoading)
  }
}
