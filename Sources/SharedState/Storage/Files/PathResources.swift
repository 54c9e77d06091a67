import Foundation
import Synchronization
import SystemPackage

/// What this process holds for one stored path, shared by every handle (``DiskFile``) on it:
/// the path's ``PathLock`` (with the coordination page), its ``FileReplacement`` (the inodes
/// kept open) and its ``FreshnessCheck``. One per path per process, counted by its users.
///
/// `@unchecked Sendable`: `replacement` is used only by the thread that holds `lock` (every
/// method here that touches it takes the lock first); the rest is immutable or `Sendable`.
final class PathResources: @unchecked Sendable {
  let paths: CompanionPaths
  let lock: PathLock
  /// The path's one look (it holds nothing but what the resources hold): made once, not on each
  /// look, which retained and released what it holds every time (every transaction and event).
  let freshness: FreshnessCheck
  /// Used only holding `lock`.
  let replacement: FileReplacement
  /// Whether descriptors and the mapped page stay open between transactions (see
  /// ``DescriptorBudget``: a share of the process's limit on open files, so that a program with
  /// thousands of keys keeps its descriptors for itself, and an idle key holds neither
  /// descriptors nor a page). Immutable, so safe to read without the lock.
  var keepsDescriptors: Bool { replacement.keepsDescriptors }

  private init(paths: CompanionPaths, filePermissions: FilePermissions, directoryPermissions: FilePermissions) {
    self.paths = paths
    let keepsDescriptors = DescriptorBudget.takePlace()
    lock = PathLock(paths: paths, filePermissions: filePermissions, directoryPermissions: directoryPermissions)
    replacement = FileReplacement(
      paths: paths, lock: lock, filePermissions: filePermissions, keepsDescriptors: keepsDescriptors
    )
    freshness = FreshnessCheck(paths: paths, lock: lock, pathKeepsPage: keepsDescriptors)
  }

  deinit {
    if keepsDescriptors { DescriptorBudget.givePlaceBack() }
  }

  /// Creates the target holding `contents` when nothing is there, without the lock, when no
  /// cooperating process has ever locked the path (see ``UnlockedCreation``). The outcome is
  /// ``UnlockedCreation/Outcome/needsLock`` when the store must take the lock instead: a lock
  /// file exists, the system cannot create the file this way, or `durability` asks for flushes
  /// (which the locked write makes). A file created this way is known at sequence 0, the
  /// sequence every reader finds without a lock file.
  ///
  /// Touches nothing of `replacement` but its permissions (immutable): no lock is held.
  func createWithoutLock(_ contents: FileContents, durability: FileDurability) -> UnlockedCreation.Outcome {
    guard durability == .atomic else { return .needsLock }
    return UnlockedCreation.create(contents, at: paths, permissions: replacement.filePermissions)
  }

  // MARK: One per path

  private struct Registry {
    // Counted rather than weak: an object that is ever referenced weakly pays for every retain
    // and release afterwards (about a tenth of a writer's time, measured).
    var entries: [PathKey: (resources: PathResources, users: Int)] = [:]
    /// One copy of each directory's path for all its files' paths.
    var directories: [PathKey: FilePath] = [:]

    mutating func sharedDirectory(of target: FilePath) -> FilePath {
      let directory = PathKey(target.directoryAndName?.directory ?? target)
      if let shared = directories[directory] { return shared }
      // Bounded: a program that walks many directories keeps only the recent ones shared.
      if directories.count >= 256 { directories.removeAll(keepingCapacity: true) }
      directories[directory] = directory.path
      return directory.path
    }
  }

  private static let registry = Mutex(Registry())

  /// The process's resources for `target`, created with these permissions if there are none.
  /// Each call must be matched by one ``release()``.
  ///
  /// - Parameters:
  ///   - target: An absolute, lexically normal path.
  ///   - filePermissions: The permissions of files it creates (less the umask).
  ///   - directoryPermissions: The permissions of directories it creates (less the umask).
  static func forTarget(
    _ target: FilePath,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions
  ) -> PathResources {
    let key = PathKey(target)
    return registry.withLock { registry in
      if let existing = registry.entries[key] {
        registry.entries[key]?.users += 1
        return existing.resources
      }
      let created = PathResources(
        paths: CompanionPaths(target: target, directory: registry.sharedDirectory(of: target)),
        filePermissions: filePermissions,
        directoryPermissions: directoryPermissions
      )
      registry.entries[key] = (created, 1)
      return created
    }
  }

  /// Says that one user of ``forTarget(_:filePermissions:directoryPermissions:)`` is done; the
  /// last one takes it out of the registry (a transaction under way keeps it alive).
  func release() {
    let key = PathKey(paths.target)
    Self.registry.withLock { registry in
      guard let entry = registry.entries[key], entry.resources === self else { return }
      if entry.users > 1 {
        registry.entries[key]?.users -= 1
      } else {
        registry.entries[key] = nil
      }
    }
  }
}
