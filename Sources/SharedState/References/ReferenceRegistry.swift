import Foundation

/// The process's table of live references: one per key id and value type, so that every
/// `@Shared` naming the same key shares one state.
///
/// It holds references weakly: state lives as long as some `Shared`, `SharedReader` or change
/// stream holds it, and a key used again later starts from what the key loads.
///
/// Sendable because `entries` is read and written only while `lock` is held.
final class ReferenceRegistry: @unchecked Sendable {
  /// What makes two keys the same state.
  struct ID: Hashable, @unchecked Sendable {
    // `AnyHashable` is not declared Sendable, but it only wraps the key's `id`, which comes from
    // a `Sendable` key and is never mutated after it is stored here.
    let keyID: AnyHashable
    let valueType: ObjectIdentifier

    init<Key: SharedReaderKey>(_ key: Key) {
      keyID = AnyHashable(key.id)
      valueType = ObjectIdentifier(Key.Value.self)
    }
  }

  /// The registry every `Shared` uses.
  static let shared = ReferenceRegistry()

  // Recursive, so that a key whose load creates other shared state does not deadlock.
  private let lock = NSRecursiveLock()
  private var entries: [ID: WeakReference] = [:]

  /// The live reference for `key`, or the one `make` creates for it (under the registry's lock,
  /// so that two threads asking at once get the same, loaded reference), then subscribed.
  func reference<Key: SharedReaderKey>(
    for key: Key,
    orMake make: () -> SharedReference<Key.Value>
  ) -> SharedReference<Key.Value> {
    let id = ID(key)
    let (reference, isNew) = lock.withLock {
      if let existing = existingReference(id, as: Key.Value.self) {
        return (existing, false)
      }
      let reference = make()
      entries[id] = WeakReference(reference)
      forgetReleasedReferences()
      return (reference, true)
    }
    // Outside the lock: see `SharedReference.subscribeToChanges()`.
    if isNew { reference.subscribeToChanges() }
    return reference
  }

  /// The live reference for `key`, if there is one.
  func existingReference<Key: SharedReaderKey>(for key: Key) -> SharedReference<Key.Value>? {
    lock.withLock { existingReference(ID(key), as: Key.Value.self) }
  }

  private func existingReference<Value>(_ id: ID, as _: Value.Type) -> SharedReference<Value>? {
    entries[id]?.object as? SharedReference<Value>
  }

  /// Drops the entries of references that are gone, once the table has doubled since the last
  /// time, so that the cost stays proportional to the insertions. Call with `lock` held.
  ///
  /// References are not removed as they deinitialise: a reference can be released on any
  /// thread, including the file watcher's while another thread holds this lock waiting for that
  /// watcher, so a deinitialiser must not take this lock.
  private func forgetReleasedReferences() {
    guard entries.count >= 2 * liveCountAfterLastPruning else { return }
    entries = entries.filter { $0.value.object != nil }
    liveCountAfterLastPruning = max(entries.count, 16)
  }

  private var liveCountAfterLastPruning = 16

  /// A weak hold on a reference.
  private struct WeakReference {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
      self.object = object
    }
  }
}

extension ReferenceRegistry {
  /// The live reference for `key` after a fresh load, or a new one from what the key loads.
  ///
  /// - Throws: The key's load error, or ``SharedValueNotFound`` when the key has nothing stored.
  func requiredReference<Key: SharedReaderKey>(for key: Key) async throws -> SharedReference<Key.Value> {
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
        continuation: LoadContinuation(String(describing: key)) {
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
