import Dependencies
import Foundation
import Synchronization

/// A table of live references: one per key type, key id and value type, so that every `@Shared`
/// naming the same key shares one state.
///
/// A program has one, for the whole process. Each test gets its own (it is a dependency), so
/// that tests running in parallel never see each other's state; code that runs outside a test's
/// dependency context shares the process's.
///
/// It holds references weakly: state lives as long as some `Shared`, `SharedReader` or change
/// stream holds it, and a key used again later starts from what the key loads.
final class ReferenceRegistry: Sendable {
  /// What makes two keys the same state: the key's type as well as its id, so that two kinds of
  /// key whose ids happen to be equal (two custom keys whose id is `0`) stay apart.
  struct ID: Hashable, @unchecked Sendable {
    // `AnyHashable` is not declared Sendable, but it only wraps the key's `id`, which comes from
    // a `Sendable` key and is never mutated after it is stored here.
    let keyID: AnyHashable
    let keyType: ObjectIdentifier
    let valueType: ObjectIdentifier
    /// The key id's hash, computed once. A lookup compares it before the ids: the table's probes
    /// compare every id they pass, and ids (a path, a name) cost more to compare than to hash.
    private let keyHash: Int

    init<Key: SharedReaderKey>(_ key: Key) {
      keyID = AnyHashable(key.id)
      keyType = ObjectIdentifier(Key.self)
      valueType = ObjectIdentifier(Key.Value.self)
      keyHash = keyID.hashValue
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.keyHash == rhs.keyHash && lhs.keyType == rhs.keyType && lhs.valueType == rhs.valueType
        && lhs.keyID == rhs.keyID
    }

    func hash(into hasher: inout Hasher) {
      hasher.combine(keyHash)
      hasher.combine(keyType)
      hasher.combine(valueType)
    }
  }

  /// The registry of the current dependency context: the process's in a program, the running
  /// test's in a test.
  static var current: ReferenceRegistry {
    // The context's value read as it is: a `@Dependency` declared here would capture this same
    // context, merge it into itself and enter it again as a task-local value (measured: a third
    // more time, for every `@Shared` created; a program may create thousands).
    DependencyValues._current.sharedReferenceRegistry
  }

  /// The table. Not recursive: nothing that takes it runs while it is held. References are made
  /// and subscribed outside it, and a reference's deinitialiser never takes it (one may run
  /// inside, when a look at a weak entry holds the last strong reference for a moment).
  private let table = Mutex(Table())

  private struct Table {
    var entries: [ID: WeakReference] = [:]
    /// How many entries were live when released ones were last dropped.
    var liveCountAfterLastPruning = 16

    func existingReference<Value>(_ id: ID, as _: Value.Type) -> SharedReference<Value>? {
      entries[id]?.object as? SharedReference<Value>
    }

    /// Drops the entries of references that are gone, once the table has doubled since the last
    /// time, so that the cost stays proportional to the insertions.
    ///
    /// References are not removed as they deinitialise: a reference can be released on any
    /// thread, this table's own look at it included, so a deinitialiser must not take this lock.
    mutating func forgetReleasedReferences() {
      guard entries.count >= 2 * liveCountAfterLastPruning else { return }
      entries = entries.filter { $0.value.object != nil }
      liveCountAfterLastPruning = max(entries.count, 16)
    }
  }

  /// The live reference for `key`, or the one `make` creates for it, then subscribed.
  ///
  /// `make` runs outside the registry's lock: a default value that is slow to compute, or a key
  /// whose load creates other shared state, must not hold up every other `@Shared` being
  /// created meanwhile. When two threads make a reference for the same key at once, the first
  /// to publish it wins and both get that one; the other is dropped before it subscribes.
  func reference<Key: SharedReaderKey>(
    for key: Key,
    orMake make: () -> SharedReference<Key.Value>
  ) -> SharedReference<Key.Value> {
    let id = ID(key)
    if let existing = table.withLock({ $0.existingReference(id, as: Key.Value.self) }) {
      return existing
    }
    let made = make()
    let (reference, isNew) = table.withLock { table in
      if let existing = table.existingReference(id, as: Key.Value.self) {
        return (existing, false)
      }
      table.entries[id] = WeakReference(made)
      table.forgetReleasedReferences()
      return (made, true)
    }
    // Outside the lock: see `SharedReference.subscribeToChanges()`.
    if isNew { reference.subscribeToChanges() }
    return reference
  }

  /// The live reference for `key`, if there is one.
  func existingReference<Key: SharedReaderKey>(for key: Key) -> SharedReference<Key.Value>? {
    table.withLock { $0.existingReference(ID(key), as: Key.Value.self) }
  }

  /// A weak hold on a reference.
  private struct WeakReference: Sendable {
    weak var object: (any RootReference)?

    init(_ object: any RootReference) {
      self.object = object
    }
  }
}

extension ReferenceRegistry {
  /// The live reference for `key` after a fresh load, or a new one from what the key loads.
  ///
  /// - Throws: The key's load error, or ``SharedValueNotFound`` when the key has nothing stored.
  nonisolated(nonsending) func requiredReference<Key: SharedReaderKey>(for key: Key) async throws -> SharedReference<Key.Value> {
    if let existing = existingReference(for: key) {
      try await existing.load()
      return existing
    }
    // The loaded value travels through a lock-guarded box, not the continuation, because the
    // value's type need not be Sendable.
    let outcome = LastValue<Result<Key.Value?, any Error>>()
    await withCheckedContinuation { (resumption: CheckedContinuation<Void, Never>) in
      key.load(
        context: .userInitiated,
        continuation: LoadContinuation(describing: key) {
          outcome.set($0)
          resumption.resume()
        }
      )
    }
    let loaded = try outcome.current!.get()
    guard let loaded else {
      throw SharedValueNotFound(keyDescription: String(describing: key))
    }
    return reference(for: key) { SharedReference(key: key, loadedValue: loaded) }
  }
}

extension ReferenceRegistry: DependencyKey {
  static let liveValue = ReferenceRegistry()
  static var testValue: ReferenceRegistry { ReferenceRegistry() }
}

extension DependencyValues {
  /// The registry of live references: see ``ReferenceRegistry/current``.
  var sharedReferenceRegistry: ReferenceRegistry {
    get { self[ReferenceRegistry.self] }
    set { self[ReferenceRegistry.self] = newValue }
  }
}
