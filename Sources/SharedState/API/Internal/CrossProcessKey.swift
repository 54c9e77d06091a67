/// A key whose storage other processes share, so that ``Shared/withLock(_:)`` must exclude them
/// as well as this process's threads.
///
/// `package`, so that the keys of `SharedStatePostgres` (another module of this package) can
/// run `withLock` as a database transaction; not part of the public API.
package protocol CrossProcessKey<Value>: SharedKey, KnowledgeOwningKey {
  /// Begins a read-modify-write of the stored value that excludes every other thread and
  /// process until it ends: see ``KeyTransaction``.
  ///
  /// - Parameter receive: Called before this returns, and only when the stored value changed
  ///   since the key last read or wrote it and the transaction has no read failure: with the
  ///   value (`nil` when nothing is stored any more), or the error when it cannot be decoded.
  ///   Not stored: the common case, nothing changed, forms no generic value at all.
  func beginTransaction(receivingChange receive: (Result<Value?, any Error>) -> Void) -> any KeyTransaction

  /// Stores `value`, atomically, through `transaction` (begun by this key); a commit that throws
  /// stored nothing, unless it throws ``StoredWithSaveError``.
  func commit(_ value: Value, through transaction: any KeyTransaction) throws

  /// This key, with a knowledge of the stored value of its own, which starts empty (its first
  /// read or transaction takes the stored value as it is) and which only its own reads, writes
  /// and subscription change.
  ///
  /// A key knows what it last read or wrote (a file's identity, a row's version), and a
  /// transaction delivers only what changed since: that knowledge must be what its reference
  /// holds. A reference takes its own copy when it is made, because one key value may serve
  /// two references (the same `static let` key in two dependency contexts, as parallel tests
  /// have) or a program's own `load`, `save` and `subscribe`: through a shared knowledge, one of
  /// them would take in a change that the other then never hears of, and that other's next
  /// `withLock` would write over it.
  func withOwnKnowledge() -> Self
}

/// A key that can give a reference a copy of itself with a knowledge of its own, found by a
/// cast to this protocol: unlike `any CrossProcessKey<Value>`, it constrains no associated type,
/// and the run time answers such a cast from its cache of conformances (the constrained cast
/// decodes the protocol's requirements on every call: a quarter more time to open a key).
package protocol KnowledgeOwningKey {
  /// ``CrossProcessKey/withOwnKnowledge()``, held as the reference of a `Value` state keeps it;
  /// `nil` when this key's value type is not `Value`.
  func ownCopy<Value>(holding valueType: Value.Type) -> (any HeldCrossProcessKey<Value>)?
}

extension CrossProcessKey {
  package func ownCopy<Other>(holding valueType: Other.Type) -> (any HeldCrossProcessKey<Other>)? {
    guard Other.self == Value.self else { return nil }
    let held: any HeldCrossProcessKey<Value> = HeldKey(withOwnKnowledge())
    // `Other` is `Value` (checked above): the two existential types are one type, with one
    // layout, and the holder is read as what the check proved it is.
    return withUnsafePointer(to: held) { pointer in
      UnsafeRawPointer(pointer).assumingMemoryBound(to: (any HeldCrossProcessKey<Other>).self).pointee
    }
  }
}

/// A reference's own copy of its cross-process key (see ``CrossProcessKey/withOwnKnowledge()``),
/// held in an object of its own: a `withLock` reaches the key through it without copying the
/// key's existential (each copy goes through the run time's witnesses), and the holder's calls
/// are made on the key's concrete type.
package protocol HeldCrossProcessKey<Value>: AnyObject, Sendable {
  associatedtype Value
  /// The key itself.
  var key: any CrossProcessKey<Value> { get }
  /// ``CrossProcessKey/beginTransaction(receivingChange:)`` of the key.
  func beginTransaction(receivingChange receive: (Result<Value?, any Error>) -> Void) -> any KeyTransaction
  /// ``CrossProcessKey/commit(_:through:)`` of the key.
  func commit(_ value: Value, through transaction: any KeyTransaction) throws
}

/// A ``HeldCrossProcessKey`` of a key of type `Key`.
final class HeldKey<Key: CrossProcessKey>: HeldCrossProcessKey {
  private let held: Key

  init(_ key: Key) {
    held = key
  }

  var key: any CrossProcessKey<Key.Value> { held }

  func beginTransaction(receivingChange receive: (Result<Key.Value?, any Error>) -> Void) -> any KeyTransaction {
    held.beginTransaction(receivingChange: receive)
  }

  func commit(_ value: Key.Value, through transaction: any KeyTransaction) throws {
    try held.commit(value, through: transaction)
  }
}
