/// A readable view of shared state: a reference itself, or a part of one reached through key
/// paths and unwrapped optionals. ``SharedReader`` reads through one.
protocol ValueProjection<Value>: Sendable {
  associatedtype Value

  /// The current value. Reading it registers an Observation access on the root reference.
  var value: Value { get }

  /// The reference that owns the state, for loading and error status.
  var root: any RootReference { get }

  /// The root's ``RootReference/isLoading``, ``RootReference/loadError`` and
  /// ``RootReference/saveError``: asked of the reference itself, without `root`'s existential
  /// (two retains and releases of the reference, which programs pay on every write they check).
  var isLoading: Bool { get }
  var loadError: (any Error)? { get }
  var saveError: (any Error)? { get }

  /// Calls `onChange` with the current value at once, then with each new value, until the
  /// returned subscription is cancelled. Calls for one root are serialised.
  func observe(_ onChange: @escaping @Sendable (Value) -> Void) -> SharedSubscription

  /// What this view shows of `rootValue`, a value of the root's type other than its current one
  /// (a snapshot a ``SharedChangeTracker`` took).
  func value(inRoot rootValue: Any) -> Value
}

/// A writable view of shared state. ``Shared`` writes through one.
protocol MutableValueProjection<Value>: ValueProjection {
  /// Runs `body` with exclusive access to the value and commits what it leaves there. A throwing
  /// `body` commits nothing.
  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R

  /// Runs `body` on what this view shows of `rootValue` (a snapshot, not the state) and puts
  /// the change back into `rootValue`.
  func update<R>(inRoot rootValue: inout Any, _ body: (inout Value) throws -> R) rethrows -> R
}

/// The status and persistence side of a reference, shared by every view derived from it.
protocol RootReference: AnyObject, Sendable {
  /// How the key that loads this state describes itself, or `nil` for state without a key.
  var keyDescription: String? { get }
  var isLoading: Bool { get }
  var loadError: (any Error)? { get }
  var saveError: (any Error)? { get }
  /// The current value, untyped: what a ``SharedChangeTracker`` snapshots.
  var anyValue: Any { get }
  /// `Shared<Int>(value: 1)`, `Shared<Int>(.inMemory("count"))`: how a tracker names the state.
  var trackedDescription: String { get }
  nonisolated(nonsending) func load() async throws
  nonisolated(nonsending) func save() async throws
}

extension ValueProjection {
  var isLoading: Bool { root.isLoading }
  var loadError: (any Error)? { root.loadError }
  var saveError: (any Error)? { root.saveError }

  /// A view of a part of this value.
  func reading<Member>(_ keyPath: KeyPath<Value, Member> & Sendable) -> any ValueProjection<Member> {
    KeyPathProjection(base: self, keyPath: keyPath)
  }

  /// A view of this optional value's wrapped value that keeps the last one seen after it
  /// becomes `nil`, or `nil` when it is `nil` now.
  func unwrapped<Wrapped>() -> (any ValueProjection<Wrapped>)? where Value == Wrapped? {
    guard let current = value else { return nil }
    return UnwrappedProjection(base: self, lastValue: current)
  }

  /// The values of this view, deduplicated where they are `Equatable`: the current value first,
  /// then each change, until the consumer stops iterating.
  func changes() -> AsyncStream<Value> where Value: Sendable {
    AsyncStream { continuation in
      let lastSent = LastValue<Value>()
      let subscription = observe { value in
        guard lastSent.replace(with: value) else { return }
        continuation.yield(value)
      }
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }
}

extension MutableValueProjection {
  /// A writable view of a part of this value.
  func appending<Member>(
    _ keyPath: WritableKeyPath<Value, Member> & Sendable
  ) -> any MutableValueProjection<Member> {
    WritableKeyPathProjection(base: self, keyPath: keyPath)
  }

  /// A writable view of this optional value's wrapped value: see ``ValueProjection/unwrapped()``.
  func unwrappedForWriting<Wrapped>() -> (any MutableValueProjection<Wrapped>)?
  where Value == Wrapped? {
    guard let current = value else { return nil }
    return UnwrappedProjection(base: self, lastValue: current)
  }
}
