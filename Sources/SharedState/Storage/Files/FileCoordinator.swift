import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Coordinates every access to one file, by every thread of this process and every process
/// on the machine that uses this library.
///
/// ## The protocol
///
/// - **Writes** take an in-process lock, then an exclusive open-file-description lock on the
///   lock file (see ``CompanionPaths``). The new contents go into the scratch file, which is then
///   exchanged with the target in one `renameat2(RENAME_EXCHANGE)`; the old target becomes the
///   next scratch file. Each write adds one to the write generation stored in the lock file.
/// - **Reads** take the in-process lock and a shared lock, so that no cooperating writer is
///   rewriting the inode they read. Before the first write there is no lock file; a read then
///   goes without the lock, and reads again under it if a writer created the lock file meanwhile.
///
/// Exchanging instead of renaming a fresh temporary file over the target keeps the file system
/// from freeing the replaced file's blocks on each write, which costs a discard request on
/// file systems mounted with `discard` (about 20 times slower on the machines this was measured
/// on). Its caveat: a process that opened the target *before* an exchange and is still reading
/// it when the *next* write rewrites that inode as scratch can see a mix, unless it reads under
/// the shared lock as this library does. Tools that read the file directly (`cat`, an editor)
/// read a small file long before that.
///
/// Not `Sendable` by the compiler's reckoning: every mutable property is read and written only
/// while `lock` is held, which is what makes the `@unchecked` below sound.
final class FileCoordinator: @unchecked Sendable {
  /// The target and its companions.
  let paths: CompanionPaths
  private let filePermissions: FilePermissions

  // Recursive: a save made inside `withExclusiveAccess` on the same thread re-enters.
  private let lock = NSRecursiveLock()
  private var lockFile: LockFile
  private var exclusiveDepth = 0
  private var lockOutcome: LockOutcome = .success(0)
  // Its own lock, so that a peek never waits for a writer that holds `lock`.
  private let generationReader = RecursiveLockIsolated<FileDescriptor?>(nil)

  private init(paths: CompanionPaths, filePermissions: FilePermissions, directoryPermissions: FilePermissions) {
    self.paths = paths
    self.filePermissions = filePermissions
    lockFile = LockFile(
      path: paths.lock,
      filePermissions: filePermissions,
      directoryPermissions: directoryPermissions
    )
  }

  // MARK: One coordinator per path

  // Guarded by `coordinatorsLock`.
  nonisolated(unsafe) private static var coordinators: [FilePath: WeakCoordinator] = [:]
  private static let coordinatorsLock = NSLock()

  /// The process's coordinator for `target`, created with these permissions if there is none.
  ///
  /// - Parameters:
  ///   - target: An absolute, lexically normal path.
  ///   - filePermissions: The permissions of files it creates (less the umask).
  ///   - directoryPermissions: The permissions of directories it creates (less the umask).
  static func coordinator(
    for target: FilePath,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions
  ) -> FileCoordinator {
    coordinatorsLock.withLock {
      if let existing = coordinators[target]?.coordinator { return existing }
      let coordinator = FileCoordinator(
        paths: CompanionPaths(target: target),
        filePermissions: filePermissions,
        directoryPermissions: directoryPermissions
      )
      coordinators = coordinators.filter { $0.value.coordinator != nil }
      coordinators[target] = WeakCoordinator(coordinator: coordinator)
      return coordinator
    }
  }

  private struct WeakCoordinator {
    weak var coordinator: FileCoordinator?
  }

  // MARK: Reading

  /// Reads the target whole, consistent with every cooperating writer.
  ///
  /// - Returns: The state, the identity of the file that was read, and the write generation it
  ///   belongs to (`nil` before the first coordinated write).
  func read() throws -> FileRead {
    try lock.withLock {
      if exclusiveDepth > 0 { return try readTarget(generation: lockFile.generation()) }
      while true {
        let isLocked = try lockFile.acquire(.shared, creating: false)
        defer { if isLocked { lockFile.release() } }
        let result = try readTarget(generation: isLocked ? lockFile.generation() : nil)
        if isLocked || !paths.lock.exists { return result }
      }
    }
  }

  /// What one read found.
  struct FileRead {
    let state: FileState
    let identity: FileIdentity?
    let generation: UInt64?
  }

  private func readTarget(generation: UInt64?) throws -> FileRead {
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.open(paths.target, .readOnly, options: [.closeOnExec])
    } catch Errno.noSuchFileOrDirectory {
      return FileRead(state: .missing, identity: nil, generation: generation)
    }
    defer { try? descriptor.close() }
    let stat = try descriptor.stat()
    // One byte more than `stat` says: a read that does not fill the buffer reached the end, which
    // saves the read that would return 0. A file that grew meanwhile is read on.
    var data = Data(count: max(Int(stat.size), 0) + 1)
    var length = 0
    while true {
      if length == data.count { data.count *= 2 }
      let room = data.count - length
      let count = try data.withUnsafeMutableBytes { buffer in
        try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[length...]))
      }
      length += count
      if count == 0 || count < room { break }
    }
    data.count = length
    return FileRead(state: .contents(data), identity: FileIdentity(stat), generation: generation)
  }

  // MARK: Writing

  /// The outcome of taking the exclusive lock: the write generation, or why the lock could not
  /// be taken.
  typealias LockOutcome = Result<UInt64, any Error>

  /// Runs `body` holding the in-process lock and the exclusive cross-process lock.
  ///
  /// When the cross-process lock cannot be taken (the directory cannot be created or written,
  /// say) `body` still runs, with the error, and ``write(_:durability:)`` refuses to write.
  /// Nested calls on one thread hold the locks once; see ``isNested``.
  func withExclusiveAccess<R>(_ body: (LockOutcome) throws -> R) rethrows -> R {
    try lock.withLock {
      if exclusiveDepth > 0 {
        exclusiveDepth += 1
        defer { exclusiveDepth -= 1 }
        return try body(lockOutcome)
      }
      let outcome: LockOutcome
      do {
        _ = try lockFile.acquire(.exclusive, creating: true)
        outcome = .success(lockFile.generation())
      } catch {
        outcome = .failure(error)
      }
      exclusiveDepth = 1
      defer {
        exclusiveDepth = 0
        if case .success = outcome { lockFile.release() }
      }
      lockOutcome = outcome
      return try body(outcome)
    }
  }

  /// The write generation now, read without any lock (`nil` when there is no lock file yet), for
  /// deciding cheaply whether anything was written since a known generation.
  func peekGeneration() -> UInt64? {
    generationReader.withValue { reader in
      if reader == nil {
        reader = try? FileDescriptor.open(paths.lock, .readOnly, options: [.closeOnExec])
      }
      guard let descriptor = reader, let generation = LockFile.generation(in: descriptor) else {
        return nil
      }
      // A lock file removed since it was opened no longer counts the writes.
      if (try? descriptor.stat())?.linkCount == 0 {
        try? descriptor.close()
        reader = nil
        return nil
      }
      return generation
    }
  }

  /// Whether the current exclusive access runs inside another on the same thread. Call it
  /// inside `withExclusiveAccess`.
  var isNested: Bool {
    lock.withLock { exclusiveDepth > 1 }
  }

  /// The identity of the target now. Call it inside `withExclusiveAccess`.
  func currentIdentity() -> FileIdentity? {
    FileIdentity(at: paths.target)
  }

  /// Reads the target. Call it inside `withExclusiveAccess`.
  func readExclusively() throws -> FileRead {
    try lock.withLock {
      precondition(exclusiveDepth > 0, "readExclusively() outside withExclusiveAccess")
      return try readTarget(generation: lockFile.generation())
    }
  }

  /// Replaces the target's contents atomically. Call it inside `withExclusiveAccess`.
  ///
  /// - Returns: The new write generation and the identity of the new target.
  ///
  /// - Parameters:
  ///   - data: The new contents.
  ///   - durability: How far the write goes before it returns.
  ///   - verifyingTarget: Whether to check first that the target is a regular file (or
  ///     missing) and carry its permissions over. Callers skip the check when the target is
  ///     as their own last write left it.
  /// - Throws: ``UnreplaceableTarget`` when the target is a directory, a symbolic link or
  ///   anything else an exchange would wrongly move aside; system errors.
  @discardableResult
  func write(
    _ data: Data,
    durability: FileDurability,
    verifyingTarget: Bool
  ) throws -> (generation: UInt64, identity: FileIdentity?) {
    try lock.withLock {
      precondition(exclusiveDepth > 0, "write(_:durability:) outside withExclusiveAccess")
      let generation = try lockOutcome.get()
      // A target someone else changed is checked: it must be a file, and its permissions are
      // kept (someone may have changed them), since the exchange puts another inode in its place.
      var permissions: FilePermissions?
      if verifyingTarget, let stat = try? paths.target.stat(followTargetSymlink: false) {
        guard stat.type == .regular else {
          throw UnreplaceableTarget(path: paths.target.string, type: stat.type)
        }
        permissions = stat.permissions
      }
      try writeScratch(data, durability: durability, permissions: permissions)
      do {
        try paths.scratch.exchange(with: paths.target)
      } catch Errno.noSuchFileOrDirectory {
        // No target yet: the first write renames the scratch file into place.
        try paths.scratch.rename(to: paths.target)
      } catch Errno.invalidArgument, Errno.notSupported {
        // A file system without RENAME_EXCHANGE (NFS, some FUSE ones): renaming the complete
        // scratch file over the target is just as atomic, at the cost of freeing the old file.
        try paths.scratch.rename(to: paths.target)
      }
      if durability == .flushedToDisk {
        try synchronizeDirectory()
      }
      let next = generation &+ 1
      try lockFile.setGeneration(next)
      lockOutcome = .success(next)
      return (next, currentIdentity())
    }
  }

  /// Removes the target, so that it reads as missing. Call it inside `withExclusiveAccess`.
  ///
  /// The lock file stays: other processes may hold it open, and it keeps counting the writes.
  ///
  /// - Returns: The new write generation.
  @discardableResult
  func remove(durability: FileDurability) throws -> UInt64 {
    try lock.withLock {
      precondition(exclusiveDepth > 0, "remove(durability:) outside withExclusiveAccess")
      let generation = try lockOutcome.get()
      if let stat = try? paths.target.stat(followTargetSymlink: false), stat.type == .directory {
        throw UnreplaceableTarget(path: paths.target.string, type: stat.type)
      }
      do {
        try paths.target.unlink()
      } catch Errno.noSuchFileOrDirectory {
        return generation
      }
      if durability == .flushedToDisk {
        try synchronizeDirectory()
      }
      let next = generation &+ 1
      try lockFile.setGeneration(next)
      lockOutcome = .success(next)
      return next
    }
  }

  private func synchronizeDirectory() throws {
    let directory = try FileDescriptor.open(paths.directory, .readOnly, options: [.closeOnExec])
    defer { try? directory.close() }
    try directory.synchronize()
  }

  private func writeScratch(
    _ data: Data,
    durability: FileDurability,
    permissions: FilePermissions?
  ) throws {
    let scratch = try FileDescriptor.open(
      paths.scratch, .writeOnly, options: [.create, .closeOnExec], permissions: filePermissions
    )
    defer { try? scratch.close() }
    if let permissions {
      try retryingOnInterrupt { fchmod(scratch.rawValue, permissions.rawValue) }
    }
    _ = try data.withUnsafeBytes { try scratch.writeAll(toAbsoluteOffset: 0, $0) }
    try scratch.resize(to: Int64(data.count))
    if durability == .flushedToDisk {
      try scratch.synchronize()
    }
  }
}

/// The error for a target that is not a regular file: exchanging it with the scratch file would
/// move a directory aside or replace a symbolic link with a file.
struct UnreplaceableTarget: Error, CustomStringConvertible {
  let path: String
  let type: FileType

  var description: String {
    let kind =
      switch type {
      case .directory: "a directory"
      case .symbolicLink: "a symbolic link (point the key at the file it links to)"
      default: "not a regular file"
      }
    return "\(path) is \(kind), so it is not replaced"
  }
}
