import Synchronization

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

  private struct Table {
    var listeners: [File: [Int: @Sendable () -> Void]] = [:]
    var nextID = 0
  }

  // A Mutex mutates the table in place: a lock that copies the value out and back would copy
  // the whole table on every listen, which made opening many keys quadratic.
  private let table = Mutex(Table())

  /// Calls `onWrite` after each write to `path` in `storage` made through the suite's API, until
  /// the returned subscription is cancelled.
  func listen(
    storage: FileStorage,
    path: String,
    onWrite: @escaping @Sendable () -> Void
  ) -> SharedSubscription {
    let file = File(storage: storage, path: path)
    let id = table.withLock { table in
      defer { table.nextID += 1 }
      table.listeners[file, default: [:]][table.nextID] = onWrite
      return table.nextID
    }
    return SharedSubscription { [self] in
      table.withLock { table in
        table.listeners[file]?[id] = nil
        if table.listeners[file]?.isEmpty == true { table.listeners[file] = nil }
      }
    }
  }

  /// Says that `path` in `storage` was just written (or removed) through the suite's API.
  func didWrite(storage: FileStorage, path: String) {
    // Called outside the table's lock: a listener takes its reference's lock.
    let toCall = table.withLock { $0.listeners[File(storage: storage, path: path)].map { Array($0.values) } ?? [] }
    for onWrite in toCall { onWrite() }
  }
}
