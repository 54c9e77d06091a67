/// One cross-process read-modify-write of a key's stored value, as `withLock` uses it: begun by
/// ``CrossProcessKey/beginTransaction()`` (locks taken, the value brought up to date), then the
/// mutation, then ``commit(_:)`` of the new value (or nothing), then ``end()``.
///
/// Used on one thread, from beginning to end.
package final class KeyTransaction<Value> {
  /// What the storage holds when it changed since the key last read or wrote it
  /// (`.success(nil)` when nothing is stored any more), the error when it cannot be read or
  /// decoded, or `nil` when it did not change.
  package let change: Result<Value?, any Error>?
  /// Why the current value could not be established (the stored bytes could not be read, the
  /// locks or the row could not be taken), or `nil`. A transaction with a read failure must write
  /// nothing: `withLock` does not run its body on a value it could not bring up to date, and
  /// reports this error as the save error. Undecodable contents are not a read failure: they
  /// arrive in ``change`` and a deliberate write may replace them.
  package let readFailure: (any Error)?
  private let commitValue: (Value) throws -> Void
  private let release: () -> Void
  private var isOpen = true

  package init(
    change: Result<Value?, any Error>?,
    readFailure: (any Error)? = nil,
    commit: @escaping (Value) throws -> Void,
    end: @escaping () -> Void
  ) {
    self.change = change
    self.readFailure = readFailure
    commitValue = commit
    release = end
  }

  /// Stores `value`, atomically; a commit that throws stored nothing.
  package func commit(_ value: Value) throws {
    try commitValue(value)
  }

  /// Releases the locks. Later calls do nothing.
  package func end() {
    guard isOpen else { return }
    isOpen = false
    release()
  }

  deinit {
    end()
  }
}
