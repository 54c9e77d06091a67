/// A property wrapper for state that several parts of a program, and several processes, share.
///
/// `Shared` is a reference: every copy, and every `@Shared` declaration with the same key, reads
/// and writes one value.
///
/// ```swift
/// @Shared(.inMemory("count")) var count = 0
/// $count.withLock { $0 += 1 }
/// ```
///
/// Read the value through the property; change it through ``withLock(_:)``, which gives the
/// closure exclusive access. With a persistence strategy (a ``SharedKey``), each change is saved
/// and changes made elsewhere arrive on their own.
///
/// The projected value, `$count`, is the `Shared` itself: pass it to other features, derive a
/// `Shared` of one of its parts (`$user.name`), or observe it with ``values``.
@dynamicMemberLookup
@propertyWrapper
public struct Shared<Value> {
  let box: ProjectionBox<any MutableValueProjection<Value>>

  /// What this `Shared` reads and writes through now.
  var projection: any MutableValueProjection<Value> { box.current }

  init(projection: any MutableValueProjection<Value>) {
    box = ProjectionBox(projection)
  }

  /// Creates shared state that belongs to no key, from a value.
  ///
  /// - Parameter value: The initial value.
  public init(value: Value) {
    self.init(projection: SharedReference(value: value))
  }

  /// Creates a `Shared` from another one: both refer to the same state.
  ///
  /// - Parameter projectedValue: The shared state to refer to.
  public init(projectedValue: Shared<Value>) {
    self = projectedValue
  }

  /// Creates shared state persisted by a key.
  ///
  /// When the process already holds state for this key, it is reused and `wrappedValue` is
  /// ignored. Otherwise the key loads its value, and `wrappedValue` stands in when nothing is
  /// stored.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value, evaluated only when needed.
  ///   - key: The persistence strategy.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.init(projection: ReferenceRegistry.current.reference(for: key) {
      SharedReference(key: key, defaultValue: wrappedValue())
    })
  }

  /// Creates optional shared state persisted by a key, `nil` until a value is stored.
  ///
  /// - Parameter key: The persistence strategy.
  // Disfavoured, so that a key with its own default (`SharedKeyDefault`, itself a key) of an
  // optional value takes the overload that uses that default.
  @_disfavoredOverload
  public init<Wrapped>(_ key: some SharedKey<Value>) where Value == Wrapped? {
    self.init(wrappedValue: nil, key)
  }

  /// Creates shared state persisted by a key that carries its own default value.
  ///
  /// - Parameter key: The persistence strategy with its default: see ``SharedKeyDefault``.
  public init<Key: SharedKey<Value>>(_ key: SharedKeyDefault<Key>) {
    self.init(wrappedValue: key.defaultValue, key.base)
  }

  /// Creates shared state persisted by a key that carries a default value, overriding that
  /// default at this use site.
  ///
  /// - Parameters:
  ///   - wrappedValue: The default value to use instead of the key's.
  ///   - key: The persistence strategy with its default: see ``SharedKeyDefault``.
  public init<Key: SharedKey<Value>>(wrappedValue: @autoclosure () -> Value, _ key: SharedKeyDefault<Key>) {
    self.init(wrappedValue: wrappedValue(), key.base)
  }

  /// Creates shared state from a key that must have a value stored.
  ///
  /// It runs on the caller's actor, as swift-sharing's does: the key's `load` is asked for the
  /// value before the initializer first suspends, however busy the other threads are.
  ///
  /// - Parameter key: The persistence strategy.
  /// - Throws: The key's load error, or ``SharedValueNotFound`` when nothing is stored.
  public nonisolated(nonsending) init(require key: some SharedKey<Value>) async throws {
    self.init(projection: try await ReferenceRegistry.current.requiredReference(for: key))
  }

  /// Unwraps optional shared state: `nil` when the value is `nil` now.
  ///
  /// The unwrapped `Shared` keeps its last value if the optional later becomes `nil`, and writes
  /// through it then change nothing.
  ///
  /// - Parameter base: Optional shared state.
  public init?(_ base: Shared<Value?>) {
    guard let projection = base.projection.unwrappedForWriting() else { return nil }
    self.init(projection: projection)
  }

  /// The current value.
  ///
  /// Reading it inside `withObservationTracking` tracks changes from anywhere: this process
  /// or, with a persistence strategy that watches its storage, another one.
  public var wrappedValue: Value {
    get { box.withCurrent { ChangeTracking.assertedValue(of: $0) ?? $0.value } }
    @available(
      *, deprecated,
      message: "Use '$shared.withLock' to modify a shared value with exclusive access."
    )
    nonmutating set { box.withCurrent { ChangeTracking.withLock($0) { $0 = newValue } } }
  }

  /// The `Shared` itself, for passing the shared state on and for calling its methods.
  ///
  /// Assigning another `Shared` to it (`$count = Shared(…)`) points this `Shared` and every
  /// copy taken of it earlier at the other state; views derived earlier (`$count.description`,
  /// `$count.read { … }`) keep the state they were derived from.
  public var projectedValue: Shared<Value> {
    get { self }
    nonmutating set { box.repoint(to: newValue.projection) }
  }

  /// Runs `operation` with exclusive access to the value, then saves what it changed.
  ///
  /// No other thread changes the value while `operation` runs and, for persistence strategies
  /// shared between processes, no other process either. The closure works on a copy: when it
  /// throws, nothing it did is kept or saved. A `withLock` nested inside another on the same
  /// state does not deadlock; the inner change is kept until the outer closure's copy replaces it,
  /// so make every change through the outer closure's argument.
  ///
  /// The change is committed before anyone hears of it: observers run after every lock is
  /// released (<doc:DeliveringChanges>). A change that cannot be committed is not kept, and
  /// ``saveError`` says why. When the current value cannot be read at all (another user's
  /// unreadable file, a file longer than the key reads, a database that does not answer),
  /// nothing is written and ``saveError`` says why: a closure that returns nothing is not run,
  /// and one that returns a result runs on a copy of the last value known, for its result only.
  ///
  /// - Parameter operation: A closure that may change the value.
  /// - Returns: What `operation` returns.
  @discardableResult
  public func withLock<R>(_ operation: (inout Value) throws -> R) rethrows -> R {
    try box.withCurrent { try ChangeTracking.withLock($0, operation) }
  }

  /// A `Shared` of a part of this value, reached through a writable key path.
  public subscript<Member>(
    dynamicMember keyPath: WritableKeyPath<Value, Member> & Sendable
  ) -> Shared<Member> {
    Shared<Member>(projection: projection.appending(keyPath))
  }

  /// A read-only view of a part of this value, reached through a key path.
  public subscript<Member>(
    dynamicMember keyPath: KeyPath<Value, Member> & Sendable
  ) -> SharedReader<Member> {
    SharedReader<Member>(projection: projection.reading(keyPath))
  }

  /// Whether the key is loading the value.
  public var isLoading: Bool { box.withCurrent { $0.isLoading } }

  /// The error of the key's last load, or `nil` when it succeeded.
  public var loadError: (any Error)? { box.withCurrent { $0.loadError } }

  /// The error of the key's last save, or `nil` when it succeeded.
  public var saveError: (any Error)? { box.withCurrent { $0.saveError } }

  /// Loads the value from the key again.
  ///
  /// - Throws: The key's load error.
  public nonisolated(nonsending) func load() async throws {
    try await projection.root.load()
  }

  /// Saves the current value through the key.
  ///
  /// For a key whose storage other processes share (file storage, app storage, PostgreSQL),
  /// the save is a transaction of its own, as a ``withLock(_:)`` is: it takes in any value
  /// another thread or process committed since this one last heard, and writes that latest
  /// value, so that a save never writes an older value over a newer one.
  ///
  /// - Throws: The key's save error; for a shared storage, also the reason the current value
  ///   could not be read, in which case nothing is written.
  public nonisolated(nonsending) func save() async throws {
    try await projection.root.save()
  }
}

extension Shared where Value: Sendable {
  /// The value now, then each change to it, for code that does not use Observation.
  ///
  /// Each iteration starts with the current value and then receives every change, whoever made
  /// it, in order. Consecutive equal values are skipped when `Value` is `Equatable`. The sequence
  /// ends when the iterating task is cancelled.
  public var values: AsyncStream<Value> { projection.changes() }
}

extension Shared: Sendable where Value: Sendable {}

extension Shared: Equatable where Value: Equatable {
  /// Whether the two hold equal values.
  public static func == (lhs: Shared, rhs: Shared) -> Bool {
    ChangeTracking.assertedEquality(lhs.projection, rhs.projection) ?? (lhs.wrappedValue == rhs.wrappedValue)
  }
}

extension Shared: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}


