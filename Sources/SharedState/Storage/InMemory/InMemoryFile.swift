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
    let state = try readWithoutRemembering()
    remember(state)
    return state
  }

  private func readWithoutRemembering() throws -> FileState {
    let state = fileSystem.read(atPath: path)
    if case let .contents(data) = state, data.count > maximumReadSize {
      throw FileTooLarge(size: Int64(data.count), limit: maximumReadSize)
    }
    return state
  }

  /// The in-memory file has no look: every occasion reads it (it costs nothing).
  func reading(on occasion: LookOccasion) -> FileReading {
    let since = FileKnowledge(state: lastState.withLock { $0 })
    do {
      let state = try readWithoutRemembering()
      let isNew = occasion == .load || state != since.state
      // Kept as the disk's handle keeps it: large contents as their digest.
      return FileReading(since: since, fresh: FileKnowledge(state: state.kept), found: .success(isNew ? state : nil))
    } catch {
      return FileReading(since: since, fresh: nil, found: .failure(error))
    }
  }

  func takeIn(_ reading: FileReading) -> Bool {
    lastState.withLock { lastState in
      guard FileKnowledge(state: lastState) == reading.since else { return false }
      if let fresh = reading.fresh { lastState = fresh.state }
      return true
    }
  }

  /// Remembers `state` as the disk's handle does: large contents as their digest.
  fileprivate func remember(_ state: FileState) {
    let kept = state.kept
    lastState.withLock { $0 = kept }
  }

  /// Never: an in-memory file's transaction does not wait for another process.
  func deferToTransaction() -> Bool { false }

  // In memory, a write's watchers hear of it as it is made: nothing is left to the writer.
  func localWriteBegins() {}

  func localWriteEnds() {}

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
    case let .contents(contents): file.fileSystem.write(contents.data, atPath: file.path)
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
  func write(_ contents: FileContents, ifStillHolding expected: FileState) throws -> FileState {
    fileSystem.lockExclusively()
    defer { fileSystem.unlockExclusively() }
    let state = fileSystem.read(atPath: path)
    guard state == expected else {
      remember(state)
      return state
    }
    fileSystem.write(contents.data, atPath: path)
    remember(.contents(contents))
    return .contents(contents)
  }
}
