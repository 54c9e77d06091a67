import Synchronization

/// What every ``SharedReference`` of one value type shares: the key paths it reports to
/// Observation, and the value type's `==`. Made once per type rather than once per reference:
/// forming a key path into a generic class resolves its type at run time (about a tenth of the
/// time to open a key), and each costs a heap object, which adds up in a program that opens
/// thousands of keys.
///
/// `@unchecked Sendable`: every property is immutable, set in `init`; key paths are immutable
/// objects and `areEqual` captures nothing mutable.
final class ReferenceTypeFacts<Value>: @unchecked Sendable {
  let valuePath = \SharedReference<Value>.value
  let isLoadingPath = \SharedReference<Value>.isLoading
  let loadErrorPath = \SharedReference<Value>.loadError
  let saveErrorPath = \SharedReference<Value>.saveError
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
