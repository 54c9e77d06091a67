/// A key whose storage other processes share, so that ``Shared/withLock(_:)`` must exclude them
/// as well as this process's threads.
///
/// `package`, so that the keys of `SharedStatePostgres` (another module of this package) can
/// run `withLock` as a database transaction; not part of the public API.
package protocol CrossProcessKey<Value>: SharedKey {
  /// Begins a read-modify-write of the stored value that excludes every other thread and
  /// process until it ends: see ``KeyTransaction``.
  func beginTransaction() -> KeyTransaction<Value>
}
