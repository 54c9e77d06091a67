import Foundation

/// A value guarded by a recursive lock: the thread holding it may take it again.
///
/// `@unchecked Sendable`: `value` is only touched with `lock` held.
final class RecursiveLockIsolated<Value>: @unchecked Sendable {
  private let recursiveLock = NSRecursiveLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try recursiveLock.withLock { try body(&value) }
  }

  /// Takes the lock, without touching the value, until ``unlock()`` on the same thread.
  func lock() {
    recursiveLock.lock()
  }

  /// Releases what ``lock()`` took.
  func unlock() {
    recursiveLock.unlock()
  }
}
