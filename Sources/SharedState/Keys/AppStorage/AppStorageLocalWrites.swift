import ConcurrencyExtras

/// Tells this process's app-storage references that the suite's own API (``AppStorageSuite``'s
/// `set`, `removeValue`) just wrote one of their files, so that a `@Shared` of that key agrees
/// with the suite at once rather than when the directory watcher delivers the change a few
/// milliseconds later. Other processes still learn of it through the watcher.
final class AppStorageLocalWrites: Sendable {
  /// The one table of the process: suites are values, so any copy of a suite must reach every
  /// reference of its keys.
  static let shared = AppStorageLocalWrites()

  private struct File: Hashable, Sendable {
    let storage: FileStorage
    let path: String
  }

  private let listeners = LockIsolated<[File: [Int: @Sendable () -> Void]]>([:])
  private let nextID = LockIsolated(0)

  /// Calls `onWrite` after each write to `path` in `storage` made through the suite's API, until
  /// the returned subscription is cancelled.
  func listen(
    storage: FileStorage,
    path: String,
    onWrite: @escaping @Sendable () -> Void
  ) -> SharedSubscription {
    let file = File(storage: storage, path: path)
    let id = nextID.withValue { id in
      defer { id += 1 }
      return id
    }
    listeners.withValue { $0[file, default: [:]][id] = onWrite }
    return SharedSubscription { [listeners] in
      listeners.withValue { listeners in
        listeners[file]?[id] = nil
        if listeners[file]?.isEmpty == true { listeners[file] = nil }
      }
    }
  }

  /// Says that `path` in `storage` was just written (or removed) through the suite's API.
  func didWrite(storage: FileStorage, path: String) {
    // Called outside the table's lock: a listener takes its reference's lock.
    let toCall = listeners.withValue { $0[File(storage: storage, path: path)].map { Array($0.values) } ?? [] }
    for onWrite in toCall { onWrite() }
  }
}
