import Foundation

/// A file system in memory, for tests and previews: files live only as long as it does, and
/// only this process sees them.
///
/// Use it through ``FileStorage/inMemory(_:)``. Its methods let a test put a file in place, or
/// change or remove one "from outside", as another process would; handles that watch the file
/// are told on a background queue.
public final class InMemoryFileSystem: Sendable {
  private struct State {
    var files: [String: Data] = [:]
    var watchers: [String: [Int: @Sendable () -> Void]] = [:]
    var nextWatcherID = 0
  }

  // Recursive: a transaction's own reads and writes take it again on the same thread.
  private let state = RecursiveLockIsolated(State())
  // Changes are announced off the writer's thread, so that no lock is held across the call.
  private let announcements = DispatchQueue(label: "SharedState.InMemoryFileSystem")

  /// Creates an empty file system.
  public init() {}

  /// The contents of the file at `path`, or `nil` when there is none.
  public func contents(atPath path: String) -> Data? {
    state.withValue { $0.files[path] }
  }

  /// Puts `data` at `path`, as another process would, and tells the file's watchers.
  public func setContents(_ data: Data, atPath path: String) {
    write(data, atPath: path)
  }

  /// Removes the file at `path`, as another process would, and tells the file's watchers.
  public func removeFile(atPath path: String) {
    state.withValue { $0.files[path] = nil }
    announceChange(atPath: path)
  }

  /// The paths of every file.
  public var paths: [String] {
    state.withValue { $0.files.keys.sorted() }
  }

  func read(atPath path: String) -> FileState {
    state.withValue { state in state.files[path].map(FileState.contents) ?? .missing }
  }

  func write(_ data: Data, atPath path: String) {
    state.withValue { $0.files[path] = data }
    announceChange(atPath: path)
  }

  /// Takes the file system's lock for a transaction; the same thread may take it again.
  func lockExclusively() {
    state.lock()
  }

  /// Releases what ``lockExclusively()`` took.
  func unlockExclusively() {
    state.unlock()
  }

  func watch(path: String, onChange: @escaping @Sendable () -> Void) -> WatchToken {
    let id = state.withValue { state in
      defer { state.nextWatcherID += 1 }
      state.watchers[path, default: [:]][state.nextWatcherID] = onChange
      return state.nextWatcherID
    }
    return WatchToken { [state] in
      state.withValue { _ = $0.watchers[path]?.removeValue(forKey: id) }
    }
  }

  private func announceChange(atPath path: String) {
    let watchers = state.withValue { Array(($0.watchers[path] ?? [:]).values) }
    announcements.async {
      for watcher in watchers { watcher() }
    }
  }
}
