/// A key whose storage other processes share, so that ``Shared/withLock(_:)`` must exclude them
/// as well as this process's threads.
protocol CrossProcessKey<Value>: SharedKey {
  /// Runs `body` holding the storage's cross-process lock; saves made inside it write under
  /// that lock.
  ///
  /// `body` receives what the storage holds when it changed since this key last read or wrote it
  /// (`.success(nil)` when nothing is stored any more), the error when that cannot be decoded or
  /// read, or `nil` when it did not change.
  func withExclusiveAccess<R>(_ body: (Result<Value?, any Error>?) throws -> R) rethrows -> R
}
