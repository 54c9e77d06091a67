import SystemPackage

extension FileReplacement {
  /// The scratch inode, ready to become the target whose entry is `target` (`nil`: a new file):
  /// with its mode, owner and group.
  ///
  /// Nothing is changed that already matches, which is the rule: the two inodes alternate, so
  /// after the first write of each user they carry the target's ownership already. What differs
  /// is changed only where the system permits it: the mode of this process's own file (a
  /// scratch of another user whose mode differs is replaced by a fresh one of this process), the
  /// owner and group by root, the group by a member of it. An owner or group that cannot be
  /// kept is accepted only when the target's mode gives everyone else the same access
  /// (`0666`, say), since then nobody loses any.
  ///
  /// - Throws: ``OwnershipNotCarried`` when the mode, the owner or the group cannot be kept,
  ///   before anything is written.
  func prepareScratch(like target: EntryStatus?) throws -> OpenInode {
    var (scratch, status) = try prepareScratch(besides: target)
    guard let target else { return scratch }
    let wanted = Ownership(target)
    var current = Ownership(status)
    if current == wanted { return scratch }
    let user = ProcessCredentials.user
    if user != 0, current.owner != user, current.mode != wanted.mode {
      // Another user's inode, left at the scratch name by an exchange: its mode is not ours to
      // change, so write a file of our own instead.
      try releaseScratch(scratch)
      (scratch, status) = try prepareScratch(besides: target)
      current = Ownership(status)
    }
    try carryOwner(wanted, to: scratch.descriptor, from: &current)
    if current.mode != wanted.mode {
      do {
        try scratch.descriptor.setPermissions(FilePermissions(rawValue: wanted.mode))
      } catch {
        throw OwnershipNotCarried(mode: wanted.mode, failure: error)
      }
    }
    return scratch
  }

  /// Gives the scratch file `wanted`'s owner and group where the system permits it.
  private func carryOwner(_ wanted: Ownership, to descriptor: FileDescriptor, from current: inout Ownership) throws {
    guard current.owner != wanted.owner || current.group != wanted.group else { return }
    if ProcessCredentials.user == 0, (try? descriptor.setOwner(wanted.owner, group: wanted.group)) != nil {
      current.owner = wanted.owner
      current.group = wanted.group
      // Changing the owner may clear the set-user-ID and set-group-ID bits.
      current.mode &= ~0o6000
    } else if current.group != wanted.group, ProcessCredentials.isMember(of: wanted.group),
      (try? descriptor.setOwner(nil, group: wanted.group)) != nil
    {
      current.group = wanted.group
      current.mode &= ~0o6000
    }
    if let refusal = OwnershipNotCarried(wanted: wanted, writtenAs: current) { throw refusal }
  }

  /// Removes the scratch name (when it is still `scratch`) and forgets the inode, unwritten.
  private func releaseScratch(_ scratch: OpenInode) throws {
    if atScratch?.descriptor == scratch.descriptor { atScratch = nil }
    scratch.descriptor.closeIgnoringFailure()
    let names = lock.entries
    guard let status = try names.scratch.entryStatusIfPresent(in: names.directory), scratch.isInode(of: status)
    else { return }
    do {
      try names.scratch.unlink(in: names.directory)
    } catch .noSuchFileOrDirectory {
      // Removed meanwhile.
    }
  }

  /// The scratch inode, checked to be at the scratch name, a regular file and singly linked;
  /// anything else there is removed (never written) and a fresh file made.
  ///
  /// Other processes' exchanges move the two inodes this process keeps open between the names:
  /// the one kept as the target may be at the scratch name now, and the one kept as the scratch
  /// at the target name (`target`, as the transaction found it). Their roles are swapped rather
  /// than the descriptors closed: a descriptor opened for writing, closed while its inode is at
  /// the target name, tells every watcher `IN_CLOSE_WRITE` there, a write in place, which each
  /// answers with a read under the path's lock. (Four processes incrementing one file closed one
  /// in sixty of their writes' kept descriptors at the target name.)
  ///
  /// - Returns: The inode, with the size the entry has now, and its status.
  private func prepareScratch(besides target: EntryStatus?) throws -> (OpenInode, EntryStatus) {
    let names = lock.entries
    let status = try names.scratch.entryStatusIfPresent(in: names.directory)
    if let status, status.linkCount == 1, let kept = keptInode(at: status, besides: target) {
      return (kept, status)
    }
    keepAsTargetOrClose(atScratch, target: target)
    atScratch = nil
    if let status {
      if let reopened = reopenScratch(status, in: names) { return reopened }
      if status.type == .directory { throw RefusedEntry(path: paths.scratch, reason: .directory) }
      // A link, a FIFO, a hard link, someone else's file: remove the name only.
      do {
        try names.scratch.unlink(in: names.directory)
      } catch .noSuchFileOrDirectory {
        // Removed meanwhile.
      }
    }
    let opened = try RegularFile.open(
      names.scratch, in: names, reportingAs: paths.scratch, writable: true, creatingWith: filePermissions, exclusively: true
    )
    let scratch = OpenInode(descriptor: opened.descriptor, status: opened.status)
    atScratch = scratch
    return (scratch, opened.status)
  }

  /// The inode this process keeps open for writing that is at the scratch name (`status`), made
  /// the scratch with the size it has now (another process may have written it since this one
  /// did); `nil` when neither is (or the one that is was opened only for reading).
  private func keptInode(at status: EntryStatus, besides target: EntryStatus?) -> OpenInode? {
    let scratch: OpenInode
    if let atScratch, atScratch.isWritable, atScratch.isInode(of: status) {
      scratch = atScratch
    } else if let atTarget, atTarget.isWritable, atTarget.isInode(of: status) {
      // Kept as the target: the inode kept as the scratch stays open as the target if it is
      // there, and is closed otherwise.
      scratch = atTarget
      self.atTarget = nil
      keepAsTargetOrClose(atScratch, target: target)
    } else {
      return nil
    }
    atScratch = scratch.updated(to: status)
    return atScratch
  }

  /// Keeps `former` (an inode kept as the scratch, no longer at the scratch name) open as the
  /// target if it is at the target name (`target`), and closes it otherwise.
  private func keepAsTargetOrClose(_ former: OpenInode?, target: EntryStatus?) {
    guard let former else { return }
    guard let target, former.isInode(of: target) else {
      former.descriptor.closeIgnoringFailure()
      return
    }
    if let atTarget, atTarget.descriptor != former.descriptor {
      atTarget.descriptor.closeIgnoringFailure()
    }
    atTarget = former
  }

  /// Opens the regular, singly linked file found at the scratch name (left by an earlier
  /// exchange); `nil` when it is anything else or changed meanwhile.
  private func reopenScratch(_ status: EntryStatus, in names: EntryNames) -> (OpenInode, EntryStatus)? {
    guard status.type == .regular, status.linkCount == 1,
      let opened = try? RegularFile.open(names.scratch, in: names, reportingAs: paths.scratch, writable: true),
      opened.status.linkCount == 1, opened.status.inode == status.inode
    else { return nil }
    let scratch = OpenInode(descriptor: opened.descriptor, status: opened.status)
    atScratch = scratch
    return (scratch, opened.status)
  }
}
