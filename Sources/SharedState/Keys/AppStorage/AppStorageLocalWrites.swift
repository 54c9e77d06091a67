import Synchronization
import SystemPackage

/// Tells this process's app-storage references that the suite's own API (``AppStorageSuite``'s
/// `set`, `removeValue`) is writing one of their files, and when it has, so that a `@Shared` of
/// that key agrees with the suite at once rather than when the directory watcher delivers the
/// change a few milliseconds later. Other processes still learn of it through the watcher.
final class AppStorageLocalWrites: Sendable {
  /// What a listener hears of a write of the suite's API.
  enum Write: Sendable {
    /// The write is about to begin.
    case begins
    /// The write is over: it replaced or removed the file, or (`wrote: false`) it failed first.
    case ends(wrote: Bool)
  }

  /// The one table of the process: suites are values, so any copy of a suite must reach every
  /// reference of its keys.
  static let shared = AppStorageLocalWrites()

  fileprivate struct File: Hashable, Sendable {
    let storage: FileStorage
    /// The key's copy of the path, shared with the storage layer.
    let path: PathKey
  }

  /// One listener to a file's writes, and the ticket that stops it.
  struct Listening: Sendable {
    fileprivate let file: File
    fileprivate let id: Int
  }

  private typealias Listener = (id: Int, onWrite: @Sendable (Write) -> Void)

  /// A file's listeners: almost always one (one reference per key), which needs no array.
  private enum Listeners {
    case one(Listener)
    case many([Listener])

    var all: [Listener] {
      switch self {
      case let .one(listener): [listener]
      case let .many(listeners): listeners
      }
    }
  }

  private struct Table {
    var listeners: [File: Listeners] = [:]
    var nextID = 0
  }

  // A Mutex mutates the table in place: a lock that copies the value out and back would copy
  // the whole table on every listen, which made opening many keys quadratic.
  private let table = Mutex(Table())

  /// Calls `onWrite` before and after each write to `path` in `storage` made through the suite's
  /// API, until ``stopListening(_:)`` is called with what it returns.
  func listen(
    storage: FileStorage,
    path: FilePath,
    onWrite: @escaping @Sendable (Write) -> Void
  ) -> Listening {
    let file = File(storage: storage, path: PathKey(path))
    let id = table.withLock { table in
      defer { table.nextID += 1 }
      let listener = (id: table.nextID, onWrite: onWrite)
      if let existing = table.listeners[file] {
        table.listeners[file] = .many(existing.all + [listener])
      } else {
        table.listeners[file] = .one(listener)
      }
      return table.nextID
    }
    return Listening(file: file, id: id)
  }

  /// Stops the listener that ``listen(storage:path:onWrite:)`` returned.
  func stopListening(_ listening: Listening) {
    table.withLock { table in
      guard let existing = table.listeners[listening.file] else { return }
      let rest = existing.all.filter { $0.id != listening.id }
      table.listeners[listening.file] = rest.count > 1 ? .many(rest) : rest.first.map(Listeners.one)
    }
  }

  /// Says that `path` in `storage` is about to be written, or was, through the suite's API.
  func tell(_ write: Write, storage: FileStorage, path: String) {
    // Called outside the table's lock: a listener takes its reference's lock.
    let file = File(storage: storage, path: PathKey(FilePath(path)))
    let toCall = table.withLock { $0.listeners[file]?.all ?? [] }
    for listener in toCall { listener.onWrite(write) }
  }
}
