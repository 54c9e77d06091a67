import Atomics
import Foundation
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Everything this process shares about one stored file on disk, whichever handles use it: the
/// in-process lock, the lock file, the coordination page, and the descriptors kept open on the
/// two inodes that alternate between the target name and the scratch name.
///
/// ## The protocol
///
/// - A **write** is a transaction: the in-process lock, then an exclusive open-file-description
///   lock on the lock file (see ``CompanionPaths``); the writer brings its handle up to date, the
///   caller decides, and the new contents go into the scratch inode, which is then exchanged with
///   the target in one `renameat2(RENAME_EXCHANGE)`; the old target becomes the next scratch.
///   Around the scratch write and the exchange the page's sequence is odd (a seqlock); at the end
///   the page describes the inode now at the target name and, when they fit, holds its contents.
/// - A **reader** (a watching process, say) trusts the page when its sequence is even and
///   unchanged around the read and its identity is what `fstatat` finds at the target name; it
///   then never opens the target nor takes the lock. Otherwise (a writer busy or dead, a file an
///   outside program replaced, a page that cannot be trusted) it reads the file under a shared
///   lock, which no writer holds while rewriting an inode a reader could have open.
///
/// Exchanging instead of renaming a fresh file over the target keeps the file system from
/// freeing the replaced file's blocks on each write (a discard request each time on file systems
/// mounted with `discard`, about 20 times slower where measured).
///
/// ## Hostile entries
///
/// Every open refuses symbolic links and anything but a regular file (``RefusedEntry``), and the
/// checks that can fail are made before the sequence turns odd and before the exchange, so that a
/// write reported as failed did not happen. A scratch entry that is not this process's own
/// regular, singly linked file is removed and made afresh, never written.
///
/// `@unchecked Sendable`: the properties under "Writer state" are only touched by the thread
/// that holds `mutex` (``holder`` names it); the page is behind its own `Mutex`.
final class DiskPath: @unchecked Sendable {
  /// The target and its companions.
  let paths: CompanionPaths
  private let filePermissions: FilePermissions
  private let directoryPermissions: FilePermissions
  /// Whether descriptors stay open between transactions (a process-wide budget, so that a
  /// program writing thousands of files does not run out of descriptors).
  private let keepsDescriptors: Bool

  private let mutex = NSLock()
  /// The thread that holds `mutex`, or 0: a transaction begun again on that thread is refused
  /// instead of deadlocking.
  // Inline, as the page's `Mutex` is: a program may open thousands of files.
  private let holder = Atomic<UInt>(0)

  // MARK: Writer state

  private var lockDescriptor: FileDescriptor?
  private var lockIsWritable = false
  private var atTarget: OpenInode?
  private var atScratch: OpenInode?
  private var isOnNetwork = false

  // MARK: Page

  private let pageState = Mutex(PageState())

  private struct PageState {
    var page: CoordinationPage?
    /// The lock file inode `page` maps; `nil` before anyone tried to map one.
    var inode: UInt64?
  }

  private init(paths: CompanionPaths, filePermissions: FilePermissions, directoryPermissions: FilePermissions) {
    self.paths = paths
    self.filePermissions = filePermissions
    self.directoryPermissions = directoryPermissions
    keepsDescriptors = Self.descriptorBudget.loadThenWrappingIncrement(ordering: .relaxed) < Self.descriptorBudgetLimit
    if !keepsDescriptors { Self.descriptorBudget.wrappingDecrement(ordering: .relaxed) }
  }

  deinit {
    if keepsDescriptors { Self.descriptorBudget.wrappingDecrement(ordering: .relaxed) }
    closeDescriptors()
  }

  // MARK: One per path

  private static let descriptorBudget = ManagedAtomic<Int>(0)
  private static let descriptorBudgetLimit = 128
  private static let registryLock = NSLock()
  // Guarded by `registryLock`. Counted rather than weak: an object that is ever referenced weakly
  // pays for every retain and release afterwards (about a tenth of a writer's time, measured).
  nonisolated(unsafe) private static var registry: [FilePath: (path: DiskPath, users: Int)] = [:]

  // Guarded by `registryLock`: one copy of each directory's path for all its files' paths.
  nonisolated(unsafe) private static var directories: [FilePath: FilePath] = [:]

  /// The directory of `target`, as a copy shared with the other files of that directory. Call
  /// with `registryLock` held.
  private static func sharedDirectory(of target: FilePath) -> FilePath {
    let directory = target.removingLastComponent()
    if let shared = directories[directory] { return shared }
    // Bounded: a program that walks many directories keeps only the recent ones shared.
    if directories.count >= 256 { directories.removeAll(keepingCapacity: true) }
    directories[directory] = directory
    return directory
  }

  /// The process's state for `target`, created with these permissions if there is none. Each
  /// call must be matched by one ``release()`` when the caller no longer uses it.
  ///
  /// - Parameters:
  ///   - target: An absolute, lexically normal path.
  ///   - filePermissions: The permissions of files it creates (less the umask).
  ///   - directoryPermissions: The permissions of directories it creates (less the umask).
  static func forTarget(
    _ target: FilePath,
    filePermissions: FilePermissions,
    directoryPermissions: FilePermissions
  ) -> DiskPath {
    registryLock.withLock {
      if let existing = registry[target] {
        registry[target]?.users += 1
        return existing.path
      }
      let created = DiskPath(
        paths: CompanionPaths(target: target, directory: sharedDirectory(of: target)),
        filePermissions: filePermissions,
        directoryPermissions: directoryPermissions
      )
      registry[target] = (created, 1)
      return created
    }
  }

  /// Says that one user of ``forTarget(_:filePermissions:directoryPermissions:)`` is done with
  /// it; the last one takes it out of the registry (a transaction under way keeps it alive).
  func release() {
    Self.registryLock.withLock {
      guard let entry = Self.registry[paths.target], entry.path === self else { return }
      if entry.users > 1 {
        Self.registry[paths.target]?.users -= 1
      } else {
        Self.registry[paths.target] = nil
      }
    }
  }

  // MARK: Locking

  private static var currentThread: UInt { UInt(pthread_self()) }

  /// Takes the in-process lock and the exclusive cross-process lock, creating the lock file (and
  /// its directory) when missing. On failure nothing is held.
  func lockExclusively() throws {
    if holder.load(ordering: .relaxed) == Self.currentThread {
      throw NestedTransaction(path: paths.target.string)
    }
    mutex.lock()
    holder.store(Self.currentThread, ordering: .relaxed)
    do {
      if let status = try acquireFileLock(.exclusive) { try preparePage(status) }
    } catch {
      releaseFileLock()
      throw error
    }
  }

  /// Releases what ``lockExclusively()`` took.
  func unlockExclusively() {
    releaseFileLock()
  }

  private func releaseFileLock() {
    try? lockDescriptor?.unlock()
    if !keepsDescriptors { closeDescriptors() }
    holder.store(0, ordering: .relaxed)
    mutex.unlock()
  }

  /// Takes the cross-process lock on the lock file. Call with `mutex` held.
  ///
  /// - Returns: The lock file's status, or `nil` when there is no lock file and `kind` is shared
  ///   (nothing to wait for).
  private func acquireFileLock(_ kind: FileDescriptor.LockKind) throws -> Stat? {
    // A lock file removed since it was opened excludes nobody: start again on the one there
    // now. Bounded, so that an entry that keeps disappearing is an error, not a spin.
    for _ in 0..<64 {
      if lockDescriptor == nil || (kind == .exclusive && !lockIsWritable) {
        closeLockDescriptor()
        guard try openLockFile(creating: kind == .exclusive) else { return nil }
      }
      guard let descriptor = lockDescriptor else { return nil }
      try descriptor.lock(kind)
      let status = try descriptor.status()
      if status.linkCount == 1 { return status }
      try? descriptor.unlock()
      closeLockDescriptor()
      if status.linkCount > 1 {
        throw RefusedEntry(path: paths.lock, reason: .hardLinked(count: status.linkCount))
      }
    }
    throw RefusedEntry(path: paths.lock, reason: .keepsDisappearing)
  }

  private func openLockFile(creating: Bool) throws -> Bool {
    let permissions = creating ? filePermissions : nil
    do {
      lockDescriptor = try openRegularFile(paths.lock, writable: true, creatingWith: permissions).descriptor
      lockIsWritable = true
    } catch let error as Errno where error == .noSuchFileOrDirectory && creating {
      try paths.directory.createDirectories(permissions: directoryPermissions)
      lockDescriptor = try openRegularFile(paths.lock, writable: true, creatingWith: permissions).descriptor
      lockIsWritable = true
    } catch let error as Errno where error == .noSuchFileOrDirectory {
      return false
    } catch let error as Errno where error == .permissionDenied && !creating {
      // A reader may lack write permission on another user's lock file; a shared lock needs
      // only read access.
      lockDescriptor = try openRegularFile(paths.lock, writable: false).descriptor
      lockIsWritable = false
    }
    return true
  }

  /// Opens `path` without following a symbolic link or waiting for a FIFO, and checks that it is
  /// a regular file.
  private func openRegularFile(
    _ path: FilePath,
    writable: Bool,
    creatingWith permissions: FilePermissions? = nil,
    exclusively: Bool = false
  ) throws -> (descriptor: FileDescriptor, status: Stat) {
    let descriptor: FileDescriptor
    do {
      descriptor = try FileDescriptor.openEntry(
        path, writable: writable, creatingWith: permissions, exclusively: exclusively
      )
    } catch .tooManySymbolicLinkLevels {
      throw RefusedEntry(path: path, reason: .symbolicLink)
    } catch .isDirectory {
      throw RefusedEntry(path: path, reason: .directory)
    } catch .noSuchAddressOrDevice {
      // O_WRONLY on a FIFO without a reader; O_RDWR never gets here, but say what it is.
      throw RefusedEntry(path: path, reason: .notRegularFile)
    }
    do {
      let status = try descriptor.status()
      if let refusal = RefusedEntry(path: path, type: status.type) { throw refusal }
      return (descriptor, status)
    } catch {
      descriptor.closeIgnoringFailure()
      throw error
    }
  }

  private func closeLockDescriptor() {
    lockDescriptor?.closeIgnoringFailure()
    lockDescriptor = nil
    lockIsWritable = false
  }

  private func closeDescriptors() {
    closeLockDescriptor()
    atTarget?.descriptor.closeIgnoringFailure()
    atTarget = nil
    atScratch?.descriptor.closeIgnoringFailure()
    atScratch = nil
  }

  // MARK: The page

  /// Maps the lock file's page, growing the file to a page first. Call holding the exclusive
  /// lock.
  private func preparePage(_ lockStatus: Stat) throws {
    guard let descriptor = lockDescriptor else { return }
    var status = lockStatus
    let inode = UInt64(status.rawValue.st_ino)
    let isMapped = pageState.withLock { $0.inode == inode }
    if isMapped { return }
    isOnNetwork = (try? descriptor.isOnNetworkFileSystem()) ?? true
    if status.rawValue.st_size < CoordinationPage.length, status.rawValue.st_uid == geteuid() {
      // Allocated, not merely sized: a page of a sparse file could fault for want of space
      // when written through the mapping.
      try descriptor.allocate(length: Int64(CoordinationPage.length))
      status = try descriptor.status()
    }
    let mapped = isOnNetwork ? nil : CoordinationPage.map(descriptor, status: status)
    pageState.withLock { $0 = PageState(page: mapped, inode: inode) }
  }

  /// The page, mapping it now (for a handle that has only watched so far) when `mapping`.
  private func currentPage(mapping: Bool) -> CoordinationPage? {
    pageState.withLock { state in
      if state.inode != nil || !mapping { return state.page }
      guard let opened = try? openRegularFile(paths.lock, writable: true) else { return nil }
      let onNetwork = (try? opened.descriptor.isOnNetworkFileSystem()) ?? true
      state.page = onNetwork ? nil : CoordinationPage.map(opened.descriptor, status: opened.status)
      state.inode = UInt64(opened.status.rawValue.st_ino)
      opened.descriptor.closeIgnoringFailure()
      return state.page
    }
  }

  /// The sequence now, from the page or the lock file. Call holding the cross-process lock.
  private func lockedSequence() -> UInt64 {
    if let page = currentPage(mapping: false) { return page.sequence }
    guard let descriptor = lockDescriptor else { return 0 }
    return (try? Self.storedSequence(in: descriptor)) ?? 0
  }

  /// The sequence that the first 8 bytes of a lock file hold (0 when it is shorter).
  private static func storedSequence(in descriptor: FileDescriptor) throws -> UInt64 {
    var value: UInt64 = 0
    let count = try withUnsafeMutableBytes(of: &value) { buffer throws -> Int in
      try descriptor.read(at: 0, into: buffer)
    }
    return count == 8 ? UInt64(littleEndian: value) : 0
  }

  private func storeSequence(_ sequence: UInt64) throws {
    guard let descriptor = lockDescriptor else { return }
    var value = sequence.littleEndian
    try withUnsafeBytes(of: &value) { bytes throws in try descriptor.write(at: 0, bytes) }
  }

  // MARK: Inside a transaction

  /// What a transaction found at its start.
  struct Refresh {
    /// What the handle knows now.
    let knowledge: FileKnowledge
    /// What changed since the handle's knowledge, `nil` when nothing did.
    let change: Result<FileState, any Error>?
    /// The entry at the target name (`nil`: none), or why it cannot be replaced.
    let target: Result<Stat?, any Error>
  }

  /// Brings `known` up to date, reading at most `limit` bytes. Call holding the exclusive lock.
  func refresh(_ known: FileKnowledge, limit: Int) -> Refresh {
    let sequence = lockedSequence()
    let status: Stat?
    do {
      status = try paths.target.entryStatusIfPresent()
      if let status, let refusal = RefusedEntry(path: paths.target, type: status.type) { throw refusal }
    } catch {
      return Refresh(knowledge: known, change: .failure(error), target: .failure(error))
    }
    let identity = status.map(FileIdentity.init)
    if known.state != nil, sequence & 1 == 0, known.sequence == sequence, known.identity == identity {
      return Refresh(knowledge: known, change: nil, target: .success(status))
    }
    var state: FileState?
    if let snapshot = currentPage(mapping: false)?.snapshot(includingContents: true, attempts: 1),
      snapshot.sequence == sequence, let description = snapshot.description,
      description.identity == identity, description.state?.fits(limit) != false
    {
      state = description.state
    }
    do {
      if state == nil { state = try readTarget(status, limit: limit) }
    } catch {
      return Refresh(knowledge: known, change: .failure(error), target: .success(status))
    }
    let fresh = FileKnowledge(sequence: sequence, identity: identity, state: state)
    return Refresh(
      knowledge: fresh,
      change: state == known.state ? nil : state.map { .success($0) },
      target: .success(status)
    )
  }

  /// Reads the target whose entry is `status`, if it is at most `limit` bytes long. Call
  /// holding a cross-process lock.
  ///
  /// - Throws: ``FileTooLarge`` for a longer file, before anything is read or allocated.
  private func readTarget(_ status: Stat?, limit: Int) throws -> FileState {
    guard let status else { return .missing }
    if let atTarget, atTarget.isInode(of: status) {
      // `status` is this inode's, from `fstatat`: as good as an `fstat`.
      return .contents(try readWhole(atTarget.descriptor, size: Int64(status.rawValue.st_size), limit: limit))
    }
    // Opened for writing only when it is kept (it becomes the next scratch file): closing a file
    // opened for writing tells every watcher IN_CLOSE_WRITE, a write in place.
    let opened: (descriptor: FileDescriptor, status: Stat)
    do {
      opened = try openRegularFile(paths.target, writable: keepsDescriptors)
    } catch let error as Errno where error == .noSuchFileOrDirectory {
      return .missing
    } catch let error as Errno where error == .permissionDenied || error == .readOnlyFileSystem {
      opened = try openRegularFile(paths.target, writable: false)
    }
    let data: Data
    do {
      data = try readWhole(opened.descriptor, size: Int64(opened.status.rawValue.st_size), limit: limit)
    } catch {
      opened.descriptor.closeIgnoringFailure()
      throw error
    }
    // Kept, since it becomes the next scratch file, when it can be written.
    if keepsDescriptors, opened.status.linkCount == 1, (try? opened.descriptor.isWritable()) == true {
      atTarget?.descriptor.closeIgnoringFailure()
      atTarget = OpenInode(descriptor: opened.descriptor, status: opened.status)
    } else {
      opened.descriptor.closeIgnoringFailure()
    }
    return .contents(data)
  }

  /// Reads the whole file, whose `fstat` said `size`, when it is at most `limit` bytes.
  private func readWhole(_ descriptor: FileDescriptor, size: Int64, limit: Int) throws -> Data {
    // Before allocating: a sparse file of terabytes costs its writer nothing.
    guard size <= Int64(limit) else { throw FileTooLarge(size: size, limit: limit) }
    // One byte more than `stat` says: a read that does not fill the buffer reached the end. A
    // file that grew meanwhile is read on, up to the limit.
    var data = Data(count: Int(max(size, 0)) + 1)
    var length = 0
    while true {
      let count = try data.withUnsafeMutableBytes { buffer throws -> Int in
        try descriptor.read(at: Int64(length), into: UnsafeMutableRawBufferPointer(rebasing: buffer[length...]))
      }
      length += count
      if length < data.count { break }
      guard length <= limit else {
        let grown = (try? descriptor.status()).map { Int64($0.rawValue.st_size) } ?? Int64(length)
        throw FileTooLarge(size: max(grown, Int64(length)), limit: limit)
      }
      data.count = min(data.count * 2, limit + 1)
    }
    data.count = length
    return data
  }

  /// Replaces what the target holds. Call holding the exclusive lock, after
  /// ``refresh(_:limit:)``.
  ///
  /// - Parameters:
  ///   - state: The new contents, or `.missing` to remove the file.
  ///   - target: The entry at the target name that ``refresh(_:limit:)`` found: the new file
  ///     gets its mode, owner and group (see ``prepareScratch(like:)``).
  ///   - durability: How far the write goes before it returns.
  ///   - record: Told what the writing handle now knows, once the new file is in place and
  ///     before the page says the write is over: a watcher of this process that wakes for the
  ///     write's own events then finds it known, and delivers nothing.
  /// - Returns: The new sequence and the identity at the target name.
  @discardableResult
  func write(
    _ state: FileState,
    replacing target: Stat?,
    durability: FileDurability,
    record: (FileKnowledge) -> Void
  ) throws -> FileKnowledge {
    if let target, let refusal = RefusedEntry(path: paths.target, type: target.type) { throw refusal }
    guard case let .contents(data) = state else {
      return try removeTarget(durability: durability, record: record)
    }
    let scratch = try prepareScratch(like: target)
    let page = currentPage(mapping: false)
    let sequence = try beginSequence(page)
    do {
      let identity = try replaceTarget(with: data, scratch: scratch, durability: durability)
      let written = FileKnowledge(sequence: sequence, identity: identity, state: state)
      try publish(written, page: page, record: record)
      return written
    } catch {
      abandonSequence(sequence, page)
      throw error
    }
  }

  /// Ends a write that succeeded: the handle records it, then the page (or, without one, the
  /// lock file's sequence) says it is over. Without a page, recording waits for the sequence to
  /// be stored: a write whose sequence cannot be stored is reported as failed, and must not be
  /// known as the handle's own.
  private func publish(_ written: FileKnowledge, page: CoordinationPage?, record: (FileKnowledge) -> Void) throws {
    if let page {
      record(written)
      page.finishWrite(sequence: written.sequence, identity: written.identity, state: written.state ?? .missing)
    } else {
      try storeSequence(written.sequence)
      record(written)
    }
  }

  /// Turns the sequence odd. Call holding the exclusive lock.
  ///
  /// - Returns: The sequence the write ends at.
  private func beginSequence(_ page: CoordinationPage?) throws -> UInt64 {
    if let page { return page.beginWrite() }
    let current = lockedSequence()
    try storeSequence(current | 1)
    return (current | 1) &+ 1
  }

  /// Ends a write that failed at `sequence`, leaving the page stale.
  private func abandonSequence(_ sequence: UInt64, _ page: CoordinationPage?) {
    if let page { page.abandonWrite(sequence: sequence) } else { try? storeSequence(sequence) }
  }

  /// Writes `data` into the scratch inode and exchanges it with the target.
  ///
  /// - Returns: The identity at the target name afterwards.
  private func replaceTarget(
    with data: Data,
    scratch prepared: OpenInode,
    durability: FileDurability
  ) throws -> FileIdentity {
    var scratch = prepared
    let descriptor = scratch.descriptor
    do {
      try data.withUnsafeBytes { bytes throws in try descriptor.write(at: 0, bytes) }
      if scratch.size != Int64(data.count) {
        try descriptor.truncate(to: Int64(data.count))
      }
      scratch.size = Int64(data.count)
      if atScratch != nil { atScratch = scratch }
      if durability == .flushedToDisk { try descriptor.synchronize() }
      if !keepsDescriptors || isOnNetwork {
        // Some file systems report a failed write only when the file is closed.
        atScratch = nil
        try descriptor.closeReportingFailure()
      }
    } catch {
      discardScratch(scratch)
      throw error
    }
    let replacedExisting = try exchangeIntoPlace()
    let keptScratch = atScratch
    if !replacedExisting { atTarget?.descriptor.closeIgnoringFailure() }
    atScratch = replacedExisting ? atTarget : nil
    atTarget = keptScratch
    let identity = FileIdentity(try keptScratch?.descriptor.status() ?? paths.target.entryStatus())
    if durability == .flushedToDisk { try synchronizeDirectory() }
    return identity
  }

  private func removeTarget(durability: FileDurability, record: (FileKnowledge) -> Void) throws -> FileKnowledge {
    let page = currentPage(mapping: false)
    let sequence = try beginSequence(page)
    do {
      do {
        try paths.target.unlink()
      } catch .noSuchFileOrDirectory {
        // Already gone.
      }
      atTarget?.descriptor.closeIgnoringFailure()
      atTarget = nil
      if durability == .flushedToDisk { try synchronizeDirectory() }
      let written = FileKnowledge(sequence: sequence, identity: nil, state: .missing)
      try publish(written, page: page, record: record)
      return written
    } catch {
      abandonSequence(sequence, page)
      throw error
    }
  }

  /// The scratch inode, ready to become `target` (`nil`: a new file): with its mode, owner and
  /// group.
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
  private func prepareScratch(like target: Stat?) throws -> OpenInode {
    var (scratch, status) = try prepareScratch()
    guard let target else { return scratch }
    let wanted = Ownership(target)
    var current = Ownership(status)
    if current == wanted { return scratch }
    let user = geteuid()
    if user != 0, current.owner != user, current.mode != wanted.mode {
      // Another user's inode, left at the scratch name by an exchange: its mode is not ours to
      // change, so write a file of our own instead.
      try releaseScratch(scratch)
      (scratch, status) = try prepareScratch()
      current = Ownership(status)
    }
    let descriptor = scratch.descriptor
    if current.owner != wanted.owner || current.group != wanted.group {
      if user == 0, (try? descriptor.setOwner(wanted.owner, group: wanted.group)) != nil {
        current.owner = wanted.owner
        current.group = wanted.group
        // Changing the owner may clear the set-user-ID and set-group-ID bits.
        current.mode &= ~0o6000
      } else if current.group != wanted.group, Self.isMember(of: wanted.group),
        (try? descriptor.setOwner(nil, group: wanted.group)) != nil
      {
        current.group = wanted.group
        current.mode &= ~0o6000
      }
      if let refusal = OwnershipNotCarried(wanted: wanted, writtenAs: current) { throw refusal }
    }
    if current.mode != wanted.mode {
      do {
        try descriptor.setPermissions(FilePermissions(rawValue: wanted.mode))
      } catch {
        throw OwnershipNotCarried(mode: wanted.mode, failure: error)
      }
    }
    return scratch
  }

  /// Whether this process may give its files `group`: its effective group or a supplementary
  /// one. Asked first, so that no `fchown` is tried that the system will refuse.
  private static func isMember(of group: gid_t) -> Bool {
    if getegid() == group { return true }
    let count = getgroups(0, nil)
    guard count > 0 else { return false }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let found = getgroups(count, &groups)
    return groups.prefix(Int(max(found, 0))).contains(group)
  }

  /// Removes the scratch name (when it is still `scratch`) and forgets the inode, unwritten.
  private func releaseScratch(_ scratch: OpenInode) throws {
    if atScratch?.descriptor == scratch.descriptor { atScratch = nil }
    scratch.descriptor.closeIgnoringFailure()
    guard let status = try paths.scratch.entryStatusIfPresent(), scratch.isInode(of: status) else { return }
    do {
      try paths.scratch.unlink()
    } catch .noSuchFileOrDirectory {
      // Removed meanwhile.
    }
  }

  /// The scratch inode, checked to be at the scratch name, a regular file and singly linked;
  /// anything else there is removed (never written) and a fresh file made.
  ///
  /// - Returns: The inode, and its status now.
  private func prepareScratch() throws -> (OpenInode, Stat) {
    let status = try paths.scratch.entryStatusIfPresent()
    if let atScratch, let status, atScratch.isInode(of: status), status.linkCount == 1 {
      return (atScratch, status)
    }
    atScratch?.descriptor.closeIgnoringFailure()
    atScratch = nil
    if let status {
      if status.type == .regular, status.linkCount == 1,
        let opened = try? openRegularFile(paths.scratch, writable: true),
        opened.status.linkCount == 1, opened.status.rawValue.st_ino == status.rawValue.st_ino
      {
        atScratch = OpenInode(descriptor: opened.descriptor, status: opened.status)
        return (atScratch!, opened.status)
      }
      if status.type == .directory { throw RefusedEntry(path: paths.scratch, reason: .directory) }
      // A link, a FIFO, a hard link, someone else's file: remove the name only.
      do {
        try paths.scratch.unlink()
      } catch .noSuchFileOrDirectory {
        // Removed meanwhile.
      }
    }
    let opened = try openRegularFile(
      paths.scratch, writable: true, creatingWith: filePermissions, exclusively: true
    )
    atScratch = OpenInode(descriptor: opened.descriptor, status: opened.status)
    return (atScratch!, opened.status)
  }

  /// Exchanges the scratch file with the target.
  ///
  /// - Returns: Whether a target was there (and is now at the scratch name).
  private func exchangeIntoPlace() throws -> Bool {
    let failure: Errno
    do {
      try paths.scratch.exchange(with: paths.target)
      return true
    } catch {
      failure = error
    }
    // No target yet (the first write), or a file system without RENAME_EXCHANGE: renaming the
    // complete scratch file over the target is as atomic, at the cost of freeing the old file.
    guard failure == .noSuchFileOrDirectory || failure == .invalidArgument || failure == .notSupported
    else { throw failure }
    try paths.scratch.rename(to: paths.target)
    return false
  }

  /// Empties and removes a scratch file whose write failed, so that a full disk is not left
  /// fuller.
  private func discardScratch(_ scratch: OpenInode) {
    try? scratch.descriptor.truncate(to: 0)
    if let status = try? paths.scratch.entryStatus(), scratch.isInode(of: status) {
      try? paths.scratch.unlink()
    }
    scratch.descriptor.closeIgnoringFailure()
    if atScratch?.descriptor == scratch.descriptor { atScratch = nil }
  }

  private func synchronizeDirectory() throws {
    let directory = try FileDescriptor.openDirectory(paths.directory)
    do {
      try directory.synchronize()
    } catch {
      directory.closeIgnoringFailure()
      throw error
    }
    try directory.closeReportingFailure()
  }

  // MARK: Reading outside a transaction

  /// Reads the target from the page alone, without any lock or opening it: `nil` when the page
  /// does not provably describe what is at the target name now (a writer busy or dead, an
  /// outside program's file, contents too long for the page, no trusted page).
  ///
  /// - Parameters:
  ///   - mapping: Whether to map the page if this process has not yet.
  ///   - limit: The most bytes the reader takes (a longer copy is left to ``readLocked(limit:)``,
  ///     which says why it is not read).
  func readFromPage(mapping: Bool, limit: Int) -> FileKnowledge? {
    guard let page = currentPage(mapping: mapping),
      let snapshot = page.snapshot(includingContents: true, attempts: 4),
      let description = snapshot.description, let state = description.state, state.fits(limit),
      targetHolds(description.identity),
      // The sequence again: no write began between the snapshot and the `fstatat`.
      page.sequence == snapshot.sequence
    else { return nil }
    return FileKnowledge(sequence: snapshot.sequence, identity: description.identity, state: state)
  }

  /// Whether the target is provably still what `known` describes, judged without mapping the
  /// page or taking a lock (a few system calls): the sequence, from the page when this process
  /// has it mapped or else read from the lock file, is even and what `known` says, and the
  /// identity at the target name is the same. `false` when in doubt.
  func isProvablyUnchanged(since known: FileKnowledge) -> Bool {
    guard known.state != nil else { return false }
    let sequence: UInt64
    if let page = currentPage(mapping: false) {
      sequence = page.sequence
    } else {
      do {
        let opened = try openRegularFile(paths.lock, writable: false)
        defer { opened.descriptor.closeIgnoringFailure() }
        sequence = try Self.storedSequence(in: opened.descriptor)
      } catch let error as Errno where error == .noSuchFileOrDirectory {
        // No lock file: no cooperating writer yet, as when `known` was read (sequence 0).
        sequence = 0
      } catch {
        return false
      }
    }
    return sequence & 1 == 0 && sequence == known.sequence && targetHolds(known.identity)
  }

  /// Reads the target under a shared lock, so that no cooperating writer is rewriting it.
  ///
  /// - Throws: ``FileTooLarge`` when the target is longer than `limit` bytes (nothing is read),
  ///   a ``RefusedEntry``, or the system's error.
  func readLocked(limit: Int) throws -> FileKnowledge {
    if holder.load(ordering: .relaxed) == Self.currentThread {
      // Inside a transaction of this thread: the exclusive lock is held already.
      return try readHoldingLock(limit: limit)
    }
    mutex.lock()
    holder.store(Self.currentThread, ordering: .relaxed)
    defer {
      if !keepsDescriptors { closeDescriptors() }
      holder.store(0, ordering: .relaxed)
      mutex.unlock()
    }
    // Before the first write there is no lock file: read without it, and again under it if a
    // writer created it meanwhile.
    for _ in 0..<8 {
      let isLocked = try acquireFileLock(.shared) != nil
      defer { if isLocked { try? lockDescriptor?.unlock() } }
      let knowledge = try readHoldingLock(limit: limit)
      if isLocked || !paths.lock.exists { return knowledge }
    }
    throw RefusedEntry(path: paths.lock, reason: .keepsDisappearing)
  }

  private func readHoldingLock(limit: Int) throws -> FileKnowledge {
    let sequence = lockedSequence()
    let status = try paths.target.entryStatusIfPresent()
    if let status, let refusal = RefusedEntry(path: paths.target, type: status.type) { throw refusal }
    let state = try readTarget(status, limit: limit)
    return FileKnowledge(sequence: sequence, identity: status.map(FileIdentity.init), state: state)
  }

  /// What the page says of a handle's knowledge, cheaply and without any lock or wait.
  enum Check {
    /// Nothing was written since, and the target name still holds what the handle knows.
    case unchanged
    /// Something changed (or there is no trusted page to tell).
    case changed
    /// A cooperating write is under way: its own change event follows, unless its writer dies.
    case busy
  }

  /// Compares the page and the target name with what a handle knows: at most one `fstatat`.
  ///
  /// - Parameters:
  ///   - knowledge: What the handle knows, read after the page's sequence (so that a write of
  ///     this process that just finished counts as known).
  ///   - waiting: Whether to give a write under way a moment to finish; without it, such a write
  ///     is `.busy` at once (unless it is the handle's own).
  ///   - mapping: Whether to map the page if this process has not yet (without: `.changed`).
  func check(_ knowledge: () -> FileKnowledge, waiting: Bool = true, mapping: Bool = true) -> Check {
    guard let page = currentPage(mapping: mapping) else { return .changed }
    // The exchange raises the event a few system calls before the writer finishes the page:
    // give it that long (two yields, then 20 µs pauses, about 0.1 ms in all), never a lock.
    var sequence = page.sequence
    for attempt in 0..<6 where sequence & 1 == 1 {
      if let own = ownWriteUnderWay(ending: sequence &+ 1, knowledge()) { return own }
      if !waiting { return .busy }
      if attempt < 2 { sched_yield() } else { usleep(20) }
      sequence = page.sequence
    }
    if sequence & 1 == 1 { return ownWriteUnderWay(ending: sequence &+ 1, knowledge()) ?? .busy }
    let known = knowledge()
    return known.state != nil && sequence == known.sequence && targetHolds(known.identity) ? .unchanged : .changed
  }

  /// The verdict on a write under way that is the handle's own (it learns of it before the page
  /// is finished, at the sequence the write ends at): unchanged while the target name holds what
  /// that write put there, changed when a program that takes no lock replaced it since. `nil`
  /// when the write under way is someone else's.
  private func ownWriteUnderWay(ending sequence: UInt64, _ known: FileKnowledge) -> Check? {
    guard known.sequence == sequence else { return nil }
    return targetHolds(known.identity) ? .unchanged : .changed
  }

  /// Whether the entry at the target name is the one `identity` names (`nil`: none); `false`
  /// when it cannot be looked up. One `fstatat`.
  private func targetHolds(_ identity: FileIdentity?) -> Bool {
    guard case let .success(status) = lookUpTarget() else { return false }
    return status.map(FileIdentity.init) == identity
  }
}

extension DiskPath {
  /// The entry at the target name (`nil`: none), or the error looking it up.
  func lookUpTarget() -> Result<Stat?, Errno> {
    do {
      return .success(try paths.target.entryStatusIfPresent())
    } catch {
      return .failure(error)
    }
  }
}

/// What a handle knows of its file: the sequence it last saw, the identity at the target name
/// then, and the contents (`nil` before it read anything).
struct FileKnowledge: Equatable, Sendable {
  var sequence: UInt64 = 0
  var identity: FileIdentity?
  var state: FileState?
}

/// The error for a transaction begun on a thread that is already inside one on the same file
/// (a `withLock` of another key for the same file, inside a `withLock`): waiting would never end.
struct NestedTransaction: Error, CustomStringConvertible {
  let path: String

  var description: String {
    "\(path) is already being changed on this thread (a withLock of another key for the same file, inside a withLock)"
  }
}
