import Synchronization

/// What every ``SharedReference`` of one value type shares: the value type's `==`. Found once
/// per type rather than once per reference (a dynamic cast), which adds up in a program that
/// opens thousands of keys.
///
/// `@unchecked Sendable`: its one property is immutable, set in `init`, and `areEqual` captures
/// nothing mutable.
final class ReferenceTypeFacts<Value>: @unchecked Sendable {
  /// `==` for the value's type, when it has one.
  let areEqual = equality(of: Value.self)

  private init() {}

  /// The facts of `Value`, made on first use.
  static var shared: ReferenceTypeFacts<Value> {
    let type = ObjectIdentifier(Value.self)
    return factsByType.withLock { table in
      // Filed under `Value`'s identity: the entry is of this very type.
      if let known = table[type] { return unsafeDowncast(known, to: ReferenceTypeFacts<Value>.self) }
      let made = ReferenceTypeFacts<Value>()
      table[type] = made
      return made
    }
  }
}

/// The facts made so far, by value type.
private let factsByType = Mutex<[ObjectIdentifier: AnyObject]>([:])
