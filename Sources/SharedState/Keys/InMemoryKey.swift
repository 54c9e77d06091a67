import Dependencies

/// A persistence strategy that keeps the value in memory, shared by the whole process and lost
/// when it exits.
///
/// ```swift
/// @Shared(.inMemory("draft")) var draft = ""
/// ```
///
/// The values live in the `defaultInMemoryStorage` dependency, read when the key is created.
public struct InMemoryKey<Value: Sendable>: SharedKey {
  /// The name of the value in the storage.
  public let name: String
  private let storage: InMemoryStorage

  /// Creates a key for a name in the current `defaultInMemoryStorage`.
  public init(_ name: String) {
    @Dependency(\.defaultInMemoryStorage) var storage
    self.name = name
    self.storage = storage
  }

  /// The name and the storage: the same name in two storages is two pieces of state.
  public var id: InMemoryKeyID {
    InMemoryKeyID(name: name, storage: storage)
  }

  /// Hands back the stored value, or stores the initial value and keeps it.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    if let initialValue = context.initialValue {
      continuation.resume(returning: storage.storeIfAbsent(initialValue, forKey: name))
    } else if let stored = storage.value(forKey: name, as: Value.self) {
      continuation.resume(returning: stored)
    } else {
      continuation.resumeReturningInitialValue()
    }
  }

  /// Returns an empty subscription: in-memory values change only through this process's own
  /// reference.
  public func subscribe(
    context: LoadContext<Value>,
    subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    .empty
  }

  /// Stores the value.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    storage.setValue(value, forKey: name)
    continuation.resume()
  }
}

extension InMemoryKey: CustomStringConvertible {
  /// `.inMemory("name")`.
  public var description: String { ".inMemory(\(String(reflecting: name)))" }
}

/// The identity of an ``InMemoryKey``: its name within one storage.
public struct InMemoryKeyID: Hashable, Sendable {
  /// The name of the value.
  public let name: String
  private let storage: InMemoryStorage

  init(name: String, storage: InMemoryStorage) {
    self.name = name
    self.storage = storage
  }

  /// Whether two ids name the same value in the same storage.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.name == rhs.name && lhs.storage === rhs.storage
  }

  /// Hashes the name and the storage's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
    hasher.combine(ObjectIdentifier(storage))
  }
}

extension SharedReaderKey {
  /// A key for a value kept in memory under `name`: see ``InMemoryKey``.
  ///
  /// - Parameter name: The name of the value; the same name is the same state.
  public static func inMemory<Value>(_ name: String) -> Self where Self == InMemoryKey<Value> {
    InMemoryKey(name)
  }
}
