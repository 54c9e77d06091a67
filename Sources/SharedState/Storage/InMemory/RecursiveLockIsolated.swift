import Foundation

/// A value guarded by a recursive lock: the thread holding it may take it again.
///
/// `@unchecked Sendable`: `value` is only touched with `lock` held.
final class RecursiveLockIsolated<Value>: @unchecked Sendable {
  private let lock = NSRecursiveLock()
  private var value: Value

  init(_ value: Value) {
    self.value = value
  }

  /// Runs `body` with exclusive access to the value.
  func withValue<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try lock.withLock { try body(&value) }
  }

  /// Runs `body` holding the lock, without touching the value.
  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    try lock.withLock(body)
  }
}
