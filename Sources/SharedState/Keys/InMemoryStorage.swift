import Dependencies
import Synchronization

/// Where ``InMemoryKey`` keeps its values: a process-local table, keyed by name and type.
///
/// Values stay here after the last `@Shared` that names them goes away, so that state declared
/// again later picks up where it was. Nothing is persisted. Select the storage with the
/// `defaultInMemoryStorage` dependency; each test gets a fresh one.
public final class InMemoryStorage: Sendable {
  private struct Slot: Hashable {
    let name: String
    let valueType: ObjectIdentifier
  }

  // A Mutex mutates the table in place (a lock that copies the value out and back would copy
  // the whole table on every write).
  private let values = Mutex<[Slot: any Sendable]>([:])

  /// Creates an empty storage.
  public init() {}

  /// The value stored under `name`, if it has the given type.
  public func value<Value: Sendable>(forKey name: String, as _: Value.Type = Value.self) -> Value? {
    values.withLock { values in
      // Unwrap the entry before casting it: a missing entry (`nil`) cast `as? Value` would
      // succeed as `nil` when `Value` is itself optional, and read as a stored `nil`.
      guard let stored = values[Slot(name: name, valueType: ObjectIdentifier(Value.self))] else {
        return nil
      }
      return stored as? Value
    }
  }

  /// Stores a value under `name`.
  public func setValue<Value: Sendable>(_ value: Value, forKey name: String) {
    values.withLock { $0[Slot(name: name, valueType: ObjectIdentifier(Value.self))] = value }
  }

  /// Stores `value` under `name` unless something of its type is stored there already.
  ///
  /// - Returns: What is stored afterwards.
  func storeIfAbsent<Value: Sendable>(_ value: Value, forKey name: String) -> Value {
    values.withLock { values in
      let slot = Slot(name: name, valueType: ObjectIdentifier(Value.self))
      if let stored = values[slot], let typed = stored as? Value { return typed }
      values[slot] = value
      return value
    }
  }
}

extension DependencyValues {
  /// The storage that `.inMemory` keys use.
  ///
  /// A program has one for its whole run; each test gets a fresh one, so that tests do not see
  /// each other's in-memory state. Override it to isolate a part of a program.
  public var defaultInMemoryStorage: InMemoryStorage {
    get { self[InMemoryStorageKey.self] }
    set { self[InMemoryStorageKey.self] = newValue }
  }
}

private enum InMemoryStorageKey: DependencyKey {
  static var liveValue: InMemoryStorage { InMemoryStorage() }
  static var testValue: InMemoryStorage { InMemoryStorage() }
}
