import Synchronization

/// The most recent value of something, safe to share between threads.
final class LastValue<Value>: Sendable {
  /// The value, and its type's `==`, in a box the `Mutex` can hold.
  ///
  /// `@unchecked Sendable`: the box only ever lives inside `stored`'s `Mutex`, so one thread at a
  /// time reads or replaces the value, and what leaves is a copy, handed only to code that
  /// already holds that value legitimately (the same shared state, which the library shares
  /// between threads by design); `areEqual` is immutable and captures only the value's type.
  private struct Box: @unchecked Sendable {
    var value: Value?
    let areEqual = equality(of: Value.self)
  }

  private let stored: Mutex<Box>

  init(_ value: Value? = nil) {
    stored = Mutex(Box(value: value))
  }

  var current: Value? { stored.withLock { $0.value } }

  func set(_ value: Value) {
    stored.withLock { $0.value = value }
  }

  /// Stores `value` and says whether it differs from what was stored (always `true` for values
  /// that are not `Equatable`).
  func replace(with value: Value) -> Bool {
    stored.withLock { box in
      defer { box.value = value }
      guard let previous = box.value else { return true }
      return box.areEqual?(previous, value) != true
    }
  }
}
