import Foundation
import SystemPackage

/// The two inodes that alternate between a stored file's target name and its scratch name, and
/// what is done with them: reading the target, writing the scratch and exchanging it with the
/// target, removing the target. Each operation returns what it did; it calls nothing back.
///
/// Exchanging instead of renaming a fresh file over the target keeps the file system from
/// freeing the replaced file's blocks on each write (a discard request each time on file systems
/// mounted with `discard`, about 20 times slower where measured). The old target becomes the
/// next scratch, which is why the descriptor a read opens on the target is kept.
///
/// Every open refuses symbolic links and anything but a regular file (``RefusedEntry``), and the
/// checks that can fail are made before the caller announces the write, so that a write
/// reported as failed did not happen. A scratch entry that is not this process's own regular,
/// singly linked file is removed and made afresh, never written.
///
/// Used only by the thread that holds the path's ``PathLock`` (see ``PathResources``).
final class FileReplacement {
  let paths: CompanionPaths
  /// The path's lock, which every caller holds: the entries are looked up where it says (see
  /// ``PathLock/entries``).
  let lock: PathLock
  let filePermissions: FilePermissions
  /// Whether descriptors stay open between transactions.
  let keepsDescriptors: Bool
  /// The descriptor on the inode at the target name, when this process has one open.
  var atTarget: OpenInode?
  /// The descriptor on the inode at the scratch name, when this process has one open.
  var atScratch: OpenInode?
  /// What the last target this process could not open for writing was like (another user's
  /// file, a read-only mount): a read of a target like it opens it for reading at once. Without
  /// it, a reader of another user's value larger than the page was refused once per change.
  var unwritableTarget: UnwritableTarget?
  /// Whether this process has replaced the target before (see ``replaceTarget(with:scratch:durability:closingEachTime:exclusively:)``).
  private var hasReplaced = false

  init(paths: CompanionPaths, lock: PathLock, filePermissions: FilePermissions, keepsDescriptors: Bool) {
    self.paths = paths
    self.lock = lock
    self.filePermissions = filePermissions
    self.keepsDescriptors = keepsDescriptors
  }

  deinit {
    closeDescriptors()
  }

  func closeDescriptors() {
    atTarget?.descriptor.closeIgnoringFailure()
    atTarget = nil
    atScratch?.descriptor.closeIgnoringFailure()
    atScratch = nil
  }

  // MARK: Replacing

  /// Writes `data` into `scratch` and exchanges it with the target. Call after the write is
  /// announced.
  ///
  /// - Parameters:
  ///   - scratch: From ``prepareScratch(like:)``.
  ///   - closingEachTime: Whether to close the written file (a network file system may report a
  ///     failed write only then).
  ///   - exclusively: Whether to give the file the target name only if nothing is there: a
  ///     program that does not take the lock may have put a file there since the lock holder
  ///     looked, and a file that is only created when missing must not replace it.
  /// - Returns: The identity this write left at the target name.
  /// - Throws: `Errno.fileExists` when `exclusively` and a file is at the target name; the
  ///   written scratch file then stays the scratch.
  func replaceTarget(
    with contents: FileContents,
    scratch prepared: OpenInode,
    durability: FileDurability,
    closingEachTime: Bool,
    exclusively: Bool = false
  ) throws -> FileIdentity {
    var scratch = prepared
    let descriptor = scratch.descriptor
    do {
      try contents.withUnsafeBytes { bytes throws in try descriptor.write(at: 0, bytes) }
      if scratch.size != Int64(contents.count) {
        try descriptor.truncate(to: Int64(contents.count))
      }
      scratch.size = Int64(contents.count)
      if atScratch != nil { atScratch = scratch }
      if durability == .flushedToDisk { try descriptor.synchronize() }
      // A first write closes what it wrote before the exchange too: closed after it (at the
      // latest when the process ends), that descriptor would tell every watcher IN_CLOSE_WRITE
      // at the target name, a write in place, which each answers with a full read. Closed here,
      // the close is at the scratch name, which watchers ignore: a program that writes once
      // (`shared-state set`) wakes each watcher once. One that writes on keeps its descriptors
      // from its second write, for one more `open` in all.
      if !keepsDescriptors || closingEachTime || !hasReplaced {
        atScratch = nil
        try descriptor.closeReportingFailure()
      }
    } catch {
      discardScratch(scratch)
      throw error
    }
    let names = lock.entries
    let replacedExisting: Bool
    if exclusively {
      try names.scratch.renameWithoutReplacing(to: names.target, in: names.directory)
      replacedExisting = false
    } else {
      replacedExisting = try exchangeIntoPlace(names)
    }
    hasReplaced = true
    let keptScratch = atScratch
    if !replacedExisting { atTarget?.descriptor.closeIgnoringFailure() }
    atScratch = replacedExisting ? atTarget : nil
    atTarget = keptScratch
    var identity = (try keptScratch?.descriptor.status() ?? names.target.entryStatus(in: names.directory)).identity
    // Looked up by name (the written descriptor is closed): another inode there is a file a
    // program that takes no lock renamed in since the exchange. The identity then names the
    // written inode, so that the next look takes that file for a change.
    identity.device = scratch.device
    identity.inode = scratch.inode
    // A program that takes no lock may have written the file in place since the exchange (a
    // shell's `>` on the name just given); the status then describes its contents, not these.
    // The identity keeps this write's size, so that no look takes that file for this write.
    // (One of the same size still passes for it: a limit like the timestamps', not worth a
    // second `fstat` on every write.)
    identity.size = Int64(contents.count)
    return identity
  }

  /// Removes the target (already gone is fine). Call after the write is announced.
  func removeTarget() throws {
    let names = lock.entries
    do {
      try names.target.unlink(in: names.directory)
    } catch .noSuchFileOrDirectory {
      // Already gone.
    }
    atTarget?.descriptor.closeIgnoringFailure()
    atTarget = nil
  }

  /// Exchanges the scratch file with the target.
  ///
  /// The target is named first: the kernel reports an exchange as two moves, the first name's
  /// (`IN_MOVED_FROM` target, `IN_MOVED_TO` scratch) before the second's, each event waking
  /// every watcher. Named second, the target's first event came after the scratch's, and a
  /// watcher woken on the idle core by that first event often read it alone (a companion's
  /// event, dropped) and slept again before the rest came: 0.12–0.15 more wake-ups per change
  /// in each of 16 watchers. Named first, the first event is the target's, and its look (the
  /// exchange is complete before any event is reported) takes long enough for the rest to be
  /// queued: 0.06–0.07 (16 watchers of `shared-demo ping`, `perf stat`, alternated).
  ///
  /// - Returns: Whether a target was there (and is now at the scratch name).
  private func exchangeIntoPlace(_ names: EntryNames) throws -> Bool {
    let failure: Errno
    do {
      try names.target.exchange(with: names.scratch, in: names.directory)
      return true
    } catch {
      failure = error
    }
    // No target yet (the first write), or a file system without RENAME_EXCHANGE: renaming the
    // complete scratch file over the target is as atomic, at the cost of freeing the old file.
    guard failure == .noSuchFileOrDirectory || failure == .invalidArgument || failure == .notSupported
    else { throw failure }
    try names.scratch.rename(to: names.target, in: names.directory)
    return false
  }

  /// Empties and removes a scratch file whose write failed, so that a full disk is not left
  /// fuller.
  private func discardScratch(_ scratch: OpenInode) {
    try? scratch.descriptor.truncate(to: 0)
    let names = lock.entries
    if let status = try? names.scratch.entryStatus(in: names.directory), scratch.isInode(of: status) {
      try? names.scratch.unlink(in: names.directory)
    }
    scratch.descriptor.closeIgnoringFailure()
    if atScratch?.descriptor == scratch.descriptor { atScratch = nil }
  }
}
