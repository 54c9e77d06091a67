/// A property wrapper for shared state that this code reads but does not change.
///
/// ```swift
/// @SharedReader(.inMemory("count")) var count = 0
/// ```
///
/// A `SharedReader` sees every change to the state, wherever it is made. Make one from a key
/// (a ``SharedReaderKey`` suffices), from a ``Shared`` with `SharedReader($count)`, or from a
/// constant with ``constant(_:)``.
@dynamicMemberLookup
@propertyWrapper
public struct SharedReader<Value> {
  let box: ProjectionBox<any ValueProjection<Value>>

  /// What this reader reads through now.
  var projection: any ValueProjection<Value> { box.current }

  init(projection: any ValueProjection<Value>) {
    box = ProjectionBox(projection)
  }

  /// Creates a reader of state that belongs to no key, from a value.
  ///
  /// - Parameter value: The value; nothing can change it.
  public init(value: Value) {
    self.init(projection: SharedReference(value: value))
  }

  /// A reader of a value that never changes, for previews and tests.
  ///
  /// - Parameter value: The value.
  public static func constant(_ value: Value) -> Self {
    Self(value: value)
  }

  /// Creates a `SharedReader` from another one: both read the same state.
  ///
  /// - Parameter projectedValue: The shared state to read.
  public init(projectedValue: SharedReader<Value>) {
    self = projectedValue
  }

  /// Creates a read-only view of shared state.
  ///
  /// - Parameter base: The shared state to read.
  public init(_ base: Shared<Value>) {
    self.init(projection: base.projection)
  }

  /// Creates a reader of state loaded by a key.
  ///
  /// When the process already holds state for this key, it is reused and `wrappedValue` is
  /// ignored. Otherwise the key loads its value, and `wrappedValue` stands in when nothing is
  /// stored.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, evaluated only when needed.
  ///   - key: The persistence strategy.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedReaderKey<Value>) {
    self.init(projection: ReferenceRegistry.current.reference(for: key) {
      SharedReference(key: key, defaultValue: wrappedValue())
    })
  }

  /// Creates a reader of state from a writable key, for static keys declared on ``SharedKey``.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, evaluated only when needed.
  ///   - key: The persistence strategy.
  @_disfavoredOverload
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.init(projection: ReferenceRegistry.current.reference(for: key) {
      SharedReference(key: key, defaultValue: wrappedValue())
    })
  }

  /// Creates a reader of optional state loaded by a key, `nil` until a value is stored.
  ///
  /// - Parameter key: The persistence strategy.
  // Disfavoured, so that a key with its own default (`SharedKeyDefault`, itself a key) of an
  // optional value takes the overload that uses that default.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedReaderKey<Value>) where Value == Wrapped? {
    self.init(wrappedValue: nil, key)
  }

  /// Creates a reader of state loaded by a key that carries its own default value.
  ///
  /// - Parameter key: The persistence strategy with its default: see ``SharedKeyDefault``.
  public init<Key: SharedReaderKey<Value>>(_ key: SharedKeyDefault<Key>) {
    self.init(wrappedValue: key.defaultValue, key.base)
  }

  /// Creates a reader of state loaded by a key that carries a default value, overriding that
  /// default at this use site.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value to use instead of the key's.
  ///   - key: The persistence strategy with its default: see ``SharedKeyDefault``.
  public init<Key: SharedReaderKey<Value>>(
    wrappedValue: @autoclosure () -> Value,
    _ key: SharedKeyDefault<Key>
  ) {
    self.init(wrappedValue: wrappedValue(), key.base)
  }

  /// Creates a reader of state from a key that must have a value stored.
  ///
  /// It runs on the caller's actor, as swift-sharing's does: the key's `load` is asked for the
  /// value before the initializer first suspends, however busy the other threads are.
  ///
  /// - Parameter key: The persistence strategy.
  /// - Throws: The key's load error, or ``SharedValueNotFound`` when nothing is stored.
  public nonisolated(nonsending) init(require key: some SharedReaderKey<Value>) async throws {
    self.init(projection: try await ReferenceRegistry.current.requiredReference(for: key))
  }

  /// Unwraps optional shared state: `nil` when the value is `nil` now.
  ///
  /// The unwrapped reader keeps its last value if the optional later becomes `nil`.
  ///
  /// - Parameter base: Optional shared state.
  public init?(_ base: SharedReader<Value?>) {
    guard let projection = base.projection.unwrapped() else { return nil }
    self.init(projection: projection)
  }

  /// The current value.
  ///
  /// Reading it inside `withObservationTracking` tracks changes from anywhere.
  public var wrappedValue: Value { box.withCurrent { ChangeTracking.assertedValue(of: $0) ?? $0.value } }

  /// The `SharedReader` itself, for passing it on and for calling its methods.
  ///
  /// Assigning another reader to it re-points this reader and every copy taken of it earlier.
  public var projectedValue: SharedReader<Value> {
    get { self }
    nonmutating set { box.repoint(to: newValue.projection) }
  }

  /// A reader of a part of this value, reached through a key path.
  public subscript<Member>(
    dynamicMember keyPath: KeyPath<Value, Member> & Sendable
  ) -> SharedReader<Member> {
    SharedReader<Member>(projection: projection.reading(keyPath))
  }

  /// Whether the key is loading the value.
  public var isLoading: Bool { box.withCurrent { $0.isLoading } }

  /// The error of the key's last load, or `nil` when it succeeded.
  public var loadError: (any Error)? { box.withCurrent { $0.loadError } }

  /// Loads the value from the key again.
  ///
  /// - Throws: The key's load error.
  public nonisolated(nonsending) func load() async throws {
    try await projection.root.load()
  }
}

extension SharedReader where Value: Sendable {
  /// The value now, then each change to it, for code that does not use Observation.
  ///
  /// Each iteration starts with the current value and then receives every change, whoever made
  /// it, in order. Consecutive equal values are skipped when `Value` is `Equatable`. The sequence
  /// ends when the iterating task is cancelled.
  public var values: AsyncStream<Value> { projection.changes() }
}

extension SharedReader: Sendable where Value: Sendable {}

extension SharedReader: Equatable where Value: Equatable {
  /// Whether the two hold equal values.
  public static func == (lhs: SharedReader, rhs: SharedReader) -> Bool {
    ChangeTracking.assertedEquality(lhs.projection, rhs.projection) ?? (lhs.wrappedValue == rhs.wrappedValue)
  }
}

extension SharedReader: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}


