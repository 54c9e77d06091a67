import ConcurrencyExtras
import Foundation
import Synchronization

/// A file system in memory, for tests and previews: files live only as long as it does, and
/// only this process sees them.
///
/// Use it through ``FileStorage/inMemory(_:)``. Its methods let a test put a file in place, or
/// change or remove one "from outside", as another process would; handles that watch the file
/// are told on a background queue.
public final class InMemoryFileSystem: Sendable {
  private struct Watchers {
    var byPath: [String: [Int: @Sendable () -> Void]] = [:]
    var nextID = 0
  }

  // The files, by file URL. A caller may hand in its own table and read or change it directly
  // (``FileStorage/inMemory(fileSystem:async:asyncAfter:)``): that API, swift-sharing's, takes
  // ConcurrencyExtras' `LockIsolated`, so the table keeps the caller's lock.
  private let files: LockIsolated<[URL: Data]>
  // The lock of a transaction, which every write takes too, so that no write lands between a
  // transaction's read and its commit. An `NSRecursiveLock`, not a `Mutex`: a transaction holds
  // it from one call to another (begin to end), which `Mutex`'s scoped `withLock` cannot, and
  // the transaction's own writes, and a test's `setContents` inside a `withLock` body, take it
  // again on the same thread. Taken before `files`' lock, never after.
  private let transactionLock = NSRecursiveLock()
  // Taken last: no other lock is taken while it is held.
  private let watchers = Mutex(Watchers())
  // Changes are announced off the writer's thread, so that no lock is held across the call;
  // `schedule` then runs each watcher's work item (at once, unless the caller chose a scheduler).
  private let announcements = DispatchQueue(label: "SharedState.InMemoryFileSystem")
  private let schedule: @Sendable (DispatchWorkItem) -> Void

  /// Creates an empty file system.
  public convenience init() {
    self.init(files: LockIsolated([:]), schedule: { $0.perform() })
  }

  init(files: LockIsolated<[URL: Data]>, schedule: @escaping @Sendable (DispatchWorkItem) -> Void) {
    self.files = files
    self.schedule = schedule
  }

  /// The contents of the file at `path`, or `nil` when there is none.
  public func contents(atPath path: String) -> Data? {
    files.withValue { $0[Self.url(path)] }
  }

  /// Puts `data` at `path`, as another process would, and tells the file's watchers.
  public func setContents(_ data: Data, atPath path: String) {
    write(data, atPath: path)
  }

  /// Removes the file at `path`, as another process would, and tells the file's watchers.
  public func removeFile(atPath path: String) {
    transactionLock.withLock { files.withValue { $0[Self.url(path)] = nil } }
    announceChange(atPath: path)
  }

  /// The paths of every file.
  public var paths: [String] {
    files.withValue { $0.keys.map(\.path).sorted() }
  }

  func read(atPath path: String) -> FileState {
    files.withValue { $0[Self.url(path)].map(FileState.contents) ?? .missing }
  }

  func write(_ data: Data, atPath path: String) {
    transactionLock.withLock { files.withValue { $0[Self.url(path)] = data } }
    announceChange(atPath: path)
  }

  /// Takes the file system's lock for a transaction; the same thread may take it again.
  func lockExclusively() {
    transactionLock.lock()
  }

  /// Releases what ``lockExclusively()`` took.
  func unlockExclusively() {
    transactionLock.unlock()
  }

  func watch(path: String, onChange: @escaping @Sendable () -> Void) -> WatchToken {
    let id = watchers.withLock { watchers in
      defer { watchers.nextID += 1 }
      watchers.byPath[path, default: [:]][watchers.nextID] = onChange
      return watchers.nextID
    }
    return WatchToken { [self] in
      _ = watchers.withLock { $0.byPath[path]?.removeValue(forKey: id) }
    }
  }

  private func announceChange(atPath path: String) {
    let toTell = watchers.withLock { Array(($0.byPath[path] ?? [:]).values) }
    announcements.async { [schedule] in
      for watcher in toTell { schedule(DispatchWorkItem(block: watcher)) }
    }
  }

  /// The key of the file at `path` in the table: a file URL, as `URL(fileURLWithPath:)` makes.
  private static func url(_ path: String) -> URL {
    URL(fileURLWithPath: path, isDirectory: false)
  }
}
