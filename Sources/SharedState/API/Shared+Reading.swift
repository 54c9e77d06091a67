extension Shared {
  /// A read-only view of a value computed from this shared value.
  ///
  /// ```swift
  /// let isZero: SharedReader<Bool> = $count.read { $0 == 0 }
  /// ```
  ///
  /// - Parameter transform: Computes the view's value from the shared value; it runs on each read.
  /// - Returns: A reader that follows the shared state this `Shared` points at now.
  public func read<Member>(_ transform: @escaping @Sendable (Value) -> Member) -> SharedReader<Member> {
    SharedReader(projection: projection.mapped(transform))
  }

  /// A read-only view of a part of this shared value.
  ///
  /// - Parameter keyPath: The part to read.
  public func read<Member>(_ keyPath: KeyPath<Value, Member> & Sendable) -> SharedReader<Member> {
    SharedReader(projection: projection.reading(keyPath))
  }

  /// Points this `Shared`, and every copy taken of it, at the state of another key, then loads
  /// that key's value.
  ///
  /// When the process holds no state for `key` yet, it starts from the current value.
  ///
  /// - Parameter key: The key to use from now on.
  /// - Throws: The key's load error.
  public nonisolated(nonsending) func load(_ key: some SharedKey<Value>) async throws {
    let (reference, isCarriedOver) = referenceCarryingOver(wrappedValue, to: key)
    box.repoint(to: reference, announcesCurrentValue: !isCarriedOver)
    try await load()
  }
}

extension SharedReader {
  /// A read-only view of a value computed from this shared value.
  ///
  /// - Parameter transform: Computes the view's value; it runs on each read.
  public func read<Member>(_ transform: @escaping @Sendable (Value) -> Member) -> SharedReader<Member> {
    SharedReader<Member>(projection: projection.mapped(transform))
  }

  /// A read-only view of a part of this shared value.
  ///
  /// - Parameter keyPath: The part to read.
  public func read<Member>(_ keyPath: KeyPath<Value, Member> & Sendable) -> SharedReader<Member> {
    SharedReader<Member>(projection: projection.reading(keyPath))
  }

  /// Points this reader, and every copy taken of it, at the state of another key, then loads
  /// that key's value.
  ///
  /// - Parameter key: The key to read from now on.
  /// - Throws: The key's load error.
  public nonisolated(nonsending) func load(_ key: some SharedReaderKey<Value>) async throws {
    let (reference, isCarriedOver) = referenceCarryingOver(wrappedValue, to: key)
    box.repoint(to: reference, announcesCurrentValue: !isCarriedOver)
    try await load()
  }

  /// Points this reader at the state of a writable key, then loads its value: see
  /// ``load(_:)-(SharedReaderKey<Value>)``.
  ///
  /// - Parameter key: The key to read from now on.
  /// - Throws: The key's load error.
  @_disfavoredOverload
  public nonisolated(nonsending) func load(_ key: some SharedKey<Value>) async throws {
    let (reference, isCarriedOver) = referenceCarryingOver(wrappedValue, to: key)
    box.repoint(to: reference, announcesCurrentValue: !isCarriedOver)
    try await load()
  }
}

/// The process's state for `key`, or new state that starts from `current` when there is none;
/// and whether that state's value is only `current`, carried over: then a publisher has nothing
/// new to send, as in swift-sharing.
///
/// For an `Equatable` value that is "holds a value equal to `current`" (new state may already
/// have caught up with a stored value while it subscribed); otherwise "is new state".
func referenceCarryingOver<Value>(
  _ current: Value,
  to key: some SharedReaderKey<Value>
) -> (SharedReference<Value>, isCarriedOver: Bool) {
  var made: SharedReference<Value>?
  let reference = ReferenceRegistry.current.reference(for: key) {
    let new = SharedReference(key: key, loadedValue: current)
    made = new
    return new
  }
  if let areEqual = equality(of: Value.self) {
    return (reference, areEqual(reference.value, current))
  }
  return (reference, reference === made)
}
