import Foundation
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The store a read makes where no file is (an app-storage default, a file key's empty
/// placeholder) when no cooperating process has ever taken the path's lock: the file alone, made
/// whole and renamed into place only if nothing is there, without the lock file.
///
/// The contents are written to a scratch file of this store's own (a name no other process or
/// store uses: `.NAME.new-PID-N.sharedstate-scratch`, a companion name that watchers skip), which
/// `renameat2(RENAME_NOREPLACE)` then gives the target name, failing when anything is there: the
/// creation is exclusive by the kernel's own rule, as the locked creation is, so a value another
/// process (or program) stored first always stands, and is what the read returns. Readers never
/// find the file partly written, and every watcher, of this edition or an older one, sees the
/// rename into place (`IN_MOVED_TO`) as it sees any write. No lock file is made: one inode per
/// stored default, where the locked store made two, and six system calls instead of about thirty.
/// (A program that opens thousands of keys in a new suite pays for each inode: on ext4 without a
/// journal, each new inode costs a search past every inode freed in the last minutes.)
///
/// Used only when there is no lock file: then nobody has taken the path's lock yet, no page
/// describes the target, and no sequence needs to grow (a missing lock file is sequence 0 to
/// every reader). Where a lock file exists, a cooperating process has written (or removed) the
/// file before, and the store takes the lock as any write does. A writer that takes the lock
/// between the look that found no lock file and the rename, and found no file either, may
/// replace this default, as it would replace a file that any other program made meanwhile: it
/// had read the same default (or its own, which then wins, as a blind write does).
///
/// Where this cannot be done (the directory does not exist yet, a name is too long, the scratch
/// name is taken), the store takes the lock instead (``Outcome/needsLock``), which creates the
/// directory and says what went wrong.
enum UnlockedCreation {
  /// What the creation did.
  enum Outcome {
    /// The file is at the target name, with this identity (its size the contents'); `nil` when
    /// it could not be known (the next look then reads the file).
    case created(FileIdentity?)
    /// Something was at the target name already: nothing was written.
    case exists
    /// Nothing was done: the store must take the lock (a lock file exists, or the file could
    /// not be made this way).
    case needsLock
  }

  /// Numbers this process's scratch names, so that two stores never share one.
  private static let stores = Atomic<UInt64>(0)
  /// The process's ID, asked once (a program may open thousands of keys). A child forked without
  /// `exec` would name its scratch files as its parent: a name taken makes the store take the
  /// lock, nothing worse.
  private static let processID = getpid()

  /// Creates the target of `paths` holding `contents`, with `permissions` (less the umask), when
  /// there is no lock file and nothing at the target name.
  static func create(_ contents: FileContents, at paths: CompanionPaths, permissions: FilePermissions) -> Outcome {
    // Any entry at the lock name (even one that is not a lock file) leaves it to the lock, which
    // judges it.
    do {
      guard try paths.lock.entryStatusIfPresent() == nil else { return .needsLock }
    } catch {
      return .needsLock
    }
    let number = stores.add(1, ordering: .relaxed).newValue
    let scratch = paths.directory.appending(
      ".\(paths.name).new-\(processID)-\(number)\(CompanionPaths.scratchSuffix)"
    )
    let descriptor: FileDescriptor
    do {
      // Exclusively and without following a link: a name that is taken is someone else's.
      descriptor = try FileDescriptor.openEntry(scratch, writable: true, creatingWith: permissions, exclusively: true)
    } catch {
      return .needsLock
    }
    let inode: EntryStatus
    do {
      try contents.withUnsafeBytes { bytes throws in try descriptor.write(at: 0, bytes) }
      inode = try descriptor.status()
    } catch {
      descriptor.closeIgnoringFailure()
      try? scratch.unlink()
      return .needsLock
    }
    do {
      // Closed before the rename: its close is then told under the scratch name, which watchers
      // skip, not as a write in place under the target's. (A failing close has closed it all
      // the same: it is not closed again.)
      try descriptor.closeReportingFailure()
    } catch {
      try? scratch.unlink()
      return .needsLock
    }
    do {
      try scratch.renameWithoutReplacing(to: paths.target)
    } catch {
      try? scratch.unlink()
      return error == .fileExists ? .exists : .needsLock
    }
    // After the rename, which changed the inode's change time; only if the name still holds
    // this inode (a writer may have replaced it since: then the next look reads the file). The
    // size stays this store's, as a locked write's identity does (see
    // `FileReplacement.replaceTarget`).
    guard let atTarget = try? paths.target.entryStatusIfPresent(),
      atTarget.device == inode.device, atTarget.inode == inode.inode
    else { return .created(nil) }
    var identity = atTarget.identity
    identity.size = Int64(contents.count)
    return .created(identity)
  }
}
