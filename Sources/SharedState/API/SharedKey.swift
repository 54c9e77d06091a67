/// A strategy that loads, saves and observes a shared value.
///
/// Pass an instance to ``Shared`` to persist its value. Every mutation through
/// ``Shared/withLock(_:)`` ends with a call to ``save(_:context:continuation:)``.
public protocol SharedKey<Value>: SharedReaderKey {
  /// Saves a value to the external system.
  ///
  /// Call exactly one of the continuation's `resume` methods, now or later.
  ///
  /// - Parameters:
  ///   - value: The value to save.
  ///   - context: Why the value is being saved: after a mutation, or because the program called
  ///     ``Shared/save()``.
  ///   - continuation: Receives the outcome.
  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation)
}
