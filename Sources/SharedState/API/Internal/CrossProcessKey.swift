/// A key whose storage other processes share, so that ``Shared/withLock(_:)`` must exclude them
/// as well as this process's threads.
///
/// `package`, so that the keys of `SharedStatePostgres` (another module of this package) can
/// run `withLock` as a database transaction; not part of the public API.
package protocol CrossProcessKey<Value>: SharedKey {
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
}
