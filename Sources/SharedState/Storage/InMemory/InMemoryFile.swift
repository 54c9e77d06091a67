import Foundation

/// A handle on a file of an ``InMemoryFileSystem``.
///
/// `@unchecked Sendable`: `lastState` is only touched with `lock` held.
final class InMemoryFile: StoredFile, @unchecked Sendable {
  let path: String
  private let fileSystem: InMemoryFileSystem
  private let lock = NSLock()
  private var lastState: FileState?

  init(path: String, fileSystem: InMemoryFileSystem) {
    self.path = path
    self.fileSystem = fileSystem
  }

  func read() throws -> FileState {
    let state = fileSystem.read(atPath: path)
    lock.withLock { lastState = state }
    return state
  }

  func readIfChanged() throws -> FileState? {
    let previous = lock.withLock { lastState }
    let state = try read()
    return state == previous ? nil : state
  }

  func withExclusiveAccess<R>(_ body: (ExclusiveFileAccess) throws -> R) rethrows -> R {
    try fileSystem.withExclusiveAccess {
      let change = try? readIfChanged()
      return try body(
        ExclusiveFileAccess(
          change: change.map { .success($0) },
          write: { [self] data in
            fileSystem.write(data, atPath: path)
            lock.withLock { lastState = .contents(data) }
          },
          remove: { [self] in
            fileSystem.removeFile(atPath: path)
            lock.withLock { lastState = .missing }
          }
        )
      )
    }
  }

  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken {
    fileSystem.watch(path: path) { onEvent(.replaced) }
  }
}
