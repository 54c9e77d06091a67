import Foundation
import Synchronization

/// A handle on a file of an ``InMemoryFileSystem``.
final class InMemoryFile: StoredFile, Sendable {
  let path: String
  fileprivate let fileSystem: InMemoryFileSystem
  /// The most bytes a read takes, as on disk.
  private let maximumReadSize: Int
  /// What the file held when this handle last read or wrote it.
  private let lastState = Mutex<FileState?>(nil)

  init(path: String, fileSystem: InMemoryFileSystem, maximumReadSize: Int) {
    self.path = path
    self.fileSystem = fileSystem
    self.maximumReadSize = maximumReadSize
  }

  func read() throws -> FileState {
    let state = fileSystem.read(atPath: path)
    if case let .contents(data) = state, data.count > maximumReadSize {
      throw FileTooLarge(size: Int64(data.count), limit: maximumReadSize)
    }
    remember(state)
    return state
  }

  func readIfChanged() throws -> FileState? {
    let previous = lastState.withLock { $0 }
    let state = try read()
    return state == previous ? nil : state
  }

  /// Remembers `state` as the disk's handle does: large contents as their digest.
  fileprivate func remember(_ state: FileState) {
    let kept = state.kept
    lastState.withLock { $0 = kept }
  }

  func beginTransaction() -> any FileTransaction {
    InMemoryFileTransaction(file: self)
  }

  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken {
    fileSystem.watch(path: path) { onEvent(.replaced) }
  }
}

/// A transaction on an ``InMemoryFile``: the file system's lock, held until ``end()``.
private final class InMemoryFileTransaction: FileTransaction {
  private let file: InMemoryFile
  private var isHeld = true
  let change: Result<FileState, any Error>?
  let readFailure: (any Error)?

  init(file: InMemoryFile) {
    self.file = file
    file.fileSystem.lockExclusively()
    do {
      change = try file.readIfChanged().map { .success($0) }
      readFailure = nil
    } catch {
      change = .failure(error)
      readFailure = error
    }
  }

  func commit(_ state: FileState) throws {
    guard isHeld else { throw TransactionEnded(path: file.path) }
    if let readFailure { throw readFailure }
    switch state {
    case let .contents(data): file.fileSystem.write(data, atPath: file.path)
    case .missing: file.fileSystem.removeFile(atPath: file.path)
    case .digest: preconditionFailure("a digest is what a handle keeps to compare, never what is written")
    }
    file.remember(state)
  }

  func end() {
    guard isHeld else { return }
    isHeld = false
    file.fileSystem.unlockExclusively()
  }

  deinit {
    end()
  }
}

extension InMemoryFile {
  func write(_ contents: Data, ifStillHolding expected: FileState) throws -> FileState {
    fileSystem.lockExclusively()
    defer { fileSystem.unlockExclusively() }
    let state = fileSystem.read(atPath: path)
    guard state == expected else {
      remember(state)
      return state
    }
    fileSystem.write(contents, atPath: path)
    remember(.contents(contents))
    return .contents(contents)
  }
}
