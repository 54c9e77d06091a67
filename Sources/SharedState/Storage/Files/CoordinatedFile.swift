import Foundation
import SystemPackage

/// A handle on a file on disk, coordinated with every thread and process through a
/// ``FileCoordinator`` and watched through the ``DirectoryWatcher``.
///
/// It notices another process's write inside `withExclusiveAccess` without reading the file
/// when nothing changed: the write generation in the lock file and the target's `stat` identity
/// must both be as this handle last saw them. The generation covers every cooperating writer
/// (whose exchanges would otherwise bring the same inode back), the identity covers programs that
/// write the file without taking part.
///
/// `@unchecked Sendable`: its mutable properties are only touched with `lock` held.
final class CoordinatedFile: StoredFile, @unchecked Sendable {
  private let coordinator: FileCoordinator
  private let durability: FileDurability
  private let lock = NSLock()
  private var lastState: FileState?
  private var knownGeneration: UInt64?
  private var knownIdentity: FileIdentity?
  /// The target's identity right after this handle's own last write.
  private var writtenIdentity: FileIdentity?
  /// Whether the next write in the current exclusive access must check the target first.
  private var verifiesTarget = true

  /// - Parameters:
  ///   - path: An absolute, lexically normal path.
  ///   - durability: How far each write goes before it returns.
  ///   - filePermissions: The permissions of files it creates (less the umask).
  ///   - directoryPermissions: The permissions of directories it creates (less the umask).
  init(
    path: FilePath,
    durability: FileDurability,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions
  ) {
    coordinator = FileCoordinator.coordinator(
      for: path,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions
    )
    self.durability = durability
  }

  var path: String { coordinator.paths.target.string }

  func read() throws -> FileState {
    try remember(coordinator.read()).state
  }

  func readIfChanged() throws -> FileState? {
    let previous = lock.withLock { lastState }
    let state = try read()
    return state == previous ? nil : state
  }

  func withExclusiveAccess<R>(_ body: (ExclusiveFileAccess) throws -> R) rethrows -> R {
    try coordinator.withExclusiveAccess { outcome in
      // Inside an outer exclusive access (a save made by `withLock`), the outer one has already
      // brought this handle up to date and checked the target.
      if coordinator.isNested {
        return try body(access(change: nil))
      }
      let identity = coordinator.currentIdentity()
      // The target as this handle's own last write left it needs no check. Anything else (a
      // file someone replaced, or changed the permissions of, even one this handle has read
      // since) is checked before it is replaced, and its permissions carried over.
      let targetIsKnown = lock.withLock { identity == nil || identity == writtenIdentity }
      let change = change(under: outcome, identity: identity)
      lock.withLock { verifiesTarget = !targetIsKnown }
      return try body(access(change: change))
    }
  }

  private func access(change: Result<FileState, any Error>?) -> ExclusiveFileAccess {
    ExclusiveFileAccess(change: change, write: { [self] in try write($0) }, remove: { [self] in try remove() })
  }

  /// Writes inside an exclusive access and remembers what was written.
  private func write(_ data: Data) throws {
    let verifying = lock.withLock { verifiesTarget }
    let written = try coordinator.write(data, durability: durability, verifyingTarget: verifying)
    lock.withLock {
      lastState = .contents(data)
      knownGeneration = written.generation
      knownIdentity = written.identity
      writtenIdentity = written.identity
      verifiesTarget = false
    }
  }

  /// Removes the file inside an exclusive access and remembers that it is gone.
  private func remove() throws {
    let generation = try coordinator.remove(durability: durability)
    lock.withLock {
      lastState = .missing
      knownGeneration = generation
      knownIdentity = nil
    }
  }

  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken {
    DirectoryWatcher.shared.watch(file: coordinator.paths.target) { [weak self] event in
      // Most replacements are this handle's own writes: skip them without reading.
      if event == .replaced, self?.isKnownCurrent() == true { return }
      onEvent(event)
    }
  }

  /// Whether the file is, cheaply judged, still what this handle last read or wrote: the same
  /// identity at the path and the same write generation.
  ///
  /// The identity is read first: a cooperating writer bumps the generation before the inode this
  /// handle knows can come back to the path, so a generation read afterwards would show it.
  private func isKnownCurrent() -> Bool {
    let identity = coordinator.currentIdentity()
    let generation = coordinator.peekGeneration()
    return lock.withLock {
      lastState != nil && identity == knownIdentity && generation != nil
        && generation == knownGeneration
    }
  }

  /// What changed since this handle last read or wrote, under the exclusive lock.
  private func change(
    under outcome: FileCoordinator.LockOutcome,
    identity: FileIdentity?
  ) -> Result<FileState, any Error>? {
    // Without the lock the write will fail; there is nothing to refresh for it.
    guard case let .success(generation) = outcome else { return nil }
    let isUnchanged = lock.withLock {
      lastState != nil && knownGeneration == generation && knownIdentity == identity
    }
    if isUnchanged { return nil }
    do {
      let previous = lock.withLock { lastState }
      let state = try remember(coordinator.readExclusively()).state
      return state == previous ? nil : .success(state)
    } catch {
      return .failure(error)
    }
  }

  private func remember(_ read: FileCoordinator.FileRead) -> FileCoordinator.FileRead {
    lock.withLock {
      lastState = read.state
      knownGeneration = read.generation
      knownIdentity = read.identity
    }
    return read
  }
}
