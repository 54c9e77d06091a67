import Foundation

/// The most recent value of something, safe to share between threads.
///
/// Sendable because every access to `stored` goes through `lock`; values are only handed out
/// as copies to code that already holds them legitimately (the same shared state).
final class LastValue<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value?
  private let areEqual = equality(of: Value.self)

  init(_ value: Value? = nil) {
    stored = value
  }

  var current: Value? { lock.withLock { stored } }

  func set(_ value: Value) {
    lock.withLock { stored = value }
  }

  /// Stores `value` and says whether it differs from what was stored (always `true` for values
  /// that are not `Equatable`).
  func replace(with value: Value) -> Bool {
    lock.withLock {
      defer { stored = value }
      guard let previous = stored else { return true }
      return areEqual?(previous, value) != true
    }
  }
}
