/// A key, possibly defined in another module of this package, whose storage runs
/// ``Shared/withLock(_:)`` as one transaction that excludes every other writer (in this process,
/// in other processes, on other machines).
///
/// It is the package-level counterpart of the internal cross-process hook that the file keys
/// use: `SharedStatePostgres` conforms its key to it so that `withLock` can lock a database row,
/// bring the value up to date, mutate it and write it back before anyone else can.
package protocol TransactionalSharedKey<Value>: SharedKey {
  /// Runs `body` inside one storage transaction; a save made inside `body` writes in that
  /// transaction, and the transaction ends (committed by that save, or rolled back when `body`
  /// saved nothing or threw) before this returns.
  ///
  /// `body` receives what the storage holds when it changed since this key last read or wrote it
  /// (`.success(nil)` when nothing is stored), the error when it cannot be read or decoded (the
  /// transaction could not begin, for instance), or `nil` when it did not change.
  func withTransaction<R>(_ body: (Result<Value?, any Error>?) throws -> R) rethrows -> R
}

/// Lets the reference layer treat a transactional key as a cross-process one.
private struct TransactionalAccess<Key: TransactionalSharedKey>: CrossProcessKey {
  let key: Key

  var id: Key.ID { key.id }

  func load(context: LoadContext<Key.Value>, continuation: LoadContinuation<Key.Value>) {
    key.load(context: context, continuation: continuation)
  }

  func subscribe(
    context: LoadContext<Key.Value>,
    subscriber: SharedSubscriber<Key.Value>
  ) -> SharedSubscription {
    key.subscribe(context: context, subscriber: subscriber)
  }

  func save(_ value: Key.Value, context: SaveContext, continuation: SaveContinuation) {
    key.save(value, context: context, continuation: continuation)
  }

  func withExclusiveAccess<R>(_ body: (Result<Key.Value?, any Error>?) throws -> R) rethrows -> R {
    try key.withTransaction(body)
  }
}

/// The cross-process access `withLock` needs for `key`, if it needs any.
func crossProcessAccess<Value>(for key: any SharedReaderKey<Value>) -> (any CrossProcessKey<Value>)? {
  if let key = key as? any CrossProcessKey<Value> { return key }
  guard let key = key as? any TransactionalSharedKey<Value> else { return nil }
  return wrap(key)
}

private func wrap<Key: TransactionalSharedKey>(_ key: Key) -> any CrossProcessKey<Key.Value> {
  TransactionalAccess(key: key)
}

extension SharedSubscriber {
  /// Delivers what `compute` returns, computed while the receiving reference holds its lock, so
  /// that a value read from storage cannot overtake a write the reference makes meanwhile.
  /// `compute` returns `nil` when there is nothing new.
  package func yieldLatestUnderReferenceLock(_ compute: () -> Result<Value?, any Error>?) {
    yieldLatest(compute)
  }
}
