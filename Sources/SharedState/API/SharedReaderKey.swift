/// A strategy that loads a shared value and tells its readers when it changes elsewhere.
///
/// Conform to this protocol to make a read-only persistence strategy, and pass an instance to
/// ``SharedReader``. Strategies that can also write conform to ``SharedKey``.
///
/// Two keys with the same ``id`` (and the same value type) stand for the same state: a process
/// holds one live reference per key id, however many `@Shared` or `@SharedReader` declarations
/// name it.
public protocol SharedReaderKey<Value>: Sendable {
  /// The type of value this key loads.
  associatedtype Value

  /// The type of the key's identity.
  associatedtype ID: Hashable = Self

  /// What makes two keys the same state within a process.
  var id: ID { get }

  /// Loads the value from the external system.
  ///
  /// Call exactly one of the continuation's `resume` methods, now or later. Resume with
  /// ``LoadContinuation/resumeReturningInitialValue()`` when there is nothing stored, so that the
  /// default value given at the use site is kept.
  ///
  /// - Parameters:
  ///   - context: Why the value is being loaded: for a new reference (carrying its default value),
  ///     or because the program called ``Shared/load()``.
  ///   - continuation: Receives the loaded value or an error.
  func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>)

  /// Starts listening for changes made outside this process's reference.
  ///
  /// Yield each new value to `subscriber` until the returned subscription is cancelled. A key
  /// whose values cannot change behind the reference's back returns an empty subscription.
  ///
  /// - Parameters:
  ///   - context: The context of the initial load.
  ///   - subscriber: Receives values, errors and loading states.
  /// - Returns: A subscription that stops the listening when cancelled or released.
  func subscribe(context: LoadContext<Value>, subscriber: SharedSubscriber<Value>) -> SharedSubscription
}

extension SharedReaderKey where ID == Self {
  /// A key that is its own identity.
  public var id: ID { self }
}
