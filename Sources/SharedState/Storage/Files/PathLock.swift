import CSystemCalls
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The lock of one stored path in this process: an in-process lock, then an open-file-description
/// lock on the lock file (see ``CompanionPaths``), which excludes other processes; and the lock
/// file's coordination page (``CoordinationPage``), which says what the last cooperating write
/// left at the target name.
///
/// Everything a write or a locked read touches of the path is used only by the thread that holds
/// the in-process lock: that is what makes ``PathResources`` safe to share.
///
/// `@unchecked Sendable`: the properties under "Held state" are read and written only by the
/// thread that holds `inProcess`; the page is behind its own `Mutex`.
final class PathLock: @unchecked Sendable {
  let paths: CompanionPaths
  private let filePermissions: FilePermissions
  private let directoryPermissions: FilePermissions
  private let inProcess = ThreadOwnedLock()

  // MARK: Held state

  /// The open lock file; read by the sequence (`PathLock+Sequence`) holding the lock.
  private(set) var lockDescriptor: FileDescriptor?
  /// The directory that holds the open lock file, opened before it; `nil` when none is open.
  private var anchor: Anchor?
  private var lockIsWritable = false
  /// Whether the lock file is on a network file system, as found when it was last mapped.
  private(set) var isOnNetwork = false
  /// The C strings the lock's calls name, made when the directory is first opened and kept for
  /// the lock's whole life (a few hundred bytes for each path ever locked): every ``Anchor``'s
  /// ``EntryNames`` point into them, so that no operation can outlive the strings it names. Kept
  /// with the lock's other held state rather than behind ``CompanionPaths``' own lock.
  private var namesForCalls: NamesForCalls?

  /// The mapped page, and the lock file's inode it maps (`nil` before anyone tried).
  let pageState = Mutex(PageState())

  struct PageState {
    var page: CoordinationPage?
    var inode: UInt64?
  }

  init(paths: CompanionPaths, filePermissions: FilePermissions, directoryPermissions: FilePermissions) {
    self.paths = paths
    self.filePermissions = filePermissions
    self.directoryPermissions = directoryPermissions
  }

  deinit {
    closeLockFile()
  }

  /// Takes the in-process lock and the exclusive lock on the lock file, creating it (and its
  /// directory) when missing, and maps its page. On failure nothing is held.
  ///
  /// - Throws: ``NestedTransaction`` when this thread holds the lock already (waiting would
  ///   never end), a ``RefusedEntry``, or the system's error.
  func lockExclusively() throws {
    guard inProcess.lock() == .acquired else { throw NestedTransaction(path: paths.target.string) }
    do {
      let status = try acquireFileLock(.exclusive)
      try preparePage(status)
    } catch {
      try? lockDescriptor?.unlock()
      inProcess.unlock()
      throw error
    }
  }

  /// Releases what ``lockExclusively()`` took; the lock file stays open when `keepingOpen`.
  func unlock(keepingOpen: Bool) {
    try? lockDescriptor?.unlock()
    if !keepingOpen { closeLockFile() }
    inProcess.unlock()
  }

  /// Runs `body` holding the in-process lock and a shared lock on the lock file, so that no
  /// cooperating writer rewrites the target meanwhile; on a thread inside a transaction on this
  /// path, under the exclusive lock it holds.
  ///
  /// Before the first write there is no lock file, and nothing to wait for: `body` runs without
  /// it, and again under it if a writer created it meanwhile (a writer rewrites the inodes it
  /// keeps, so what was read may be torn), unless `body` says it found no file to read (which
  /// was true when it looked).
  func withSharedLock<R>(keepingOpen: Bool, _ body: () throws -> (result: R, foundNoFile: Bool)) throws -> R {
    guard inProcess.lock() == .acquired else { return try body().result }
    defer {
      if !keepingOpen { closeLockFile() }
      inProcess.unlock()
    }
    for _ in 0..<8 {
      let isLocked = try acquireFileLockIfPresent(.shared, keepingOpen: keepingOpen) != nil
      defer { if isLocked { try? lockDescriptor?.unlock() } }
      let (result, foundNoFile) = try body()
      if isLocked || foundNoFile || !paths.lock.exists { return result }
    }
    throw RefusedEntry(path: paths.lock, reason: .keepsDisappearing)
  }

  // MARK: The lock file

  private func acquireFileLock(_ kind: FileDescriptor.LockKind) throws -> EntryStatus {
    guard let status = try acquireFileLockIfPresent(kind) else {
      throw RefusedEntry(path: paths.lock, reason: .keepsDisappearing)
    }
    return status
  }

  /// Takes the lock file's lock. Call holding `inProcess`.
  ///
  /// - Parameter keepingOpen: Whether the descriptor stays open after a shared lock: one that
  ///   does not is opened for reading only, since closing a descriptor opened for writing tells
  ///   every watcher of the directory `IN_CLOSE_WRITE` (a program opening thousands of keys would
  ///   wake its own watcher once per key).
  /// - Returns: The lock file's status, or `nil` when there is no lock file and `kind` is shared.
  private func acquireFileLockIfPresent(
    _ kind: FileDescriptor.LockKind,
    keepingOpen: Bool = true
  ) throws -> EntryStatus? {
    // A lock file removed since it was opened excludes nobody: start again on the one there
    // now. Bounded, so that an entry that keeps disappearing is an error, not a spin.
    for _ in 0..<64 {
      if lockDescriptor == nil || (kind == .exclusive && !lockIsWritable) {
        closeLockFile()
        guard try openLockFile(creating: kind == .exclusive, readingOnly: kind == .shared && !keepingOpen) else {
          return nil
        }
      }
      guard let descriptor = lockDescriptor else { return nil }
      try descriptor.lock(kind)
      // Checked now that the lock is granted, before any byte is mapped or written: the wait may
      // have been long, and what was opened may have changed meanwhile. A name that another
      // user hard-linked to a file elsewhere, then removed while this process waited, leaves a
      // singly linked file that is no longer at the name: it is not the lock file. A descriptor
      // kept open is checked at the name too, on every lock: a directory on the path swapped
      // for another (a symbolic link retargeted, as stow and home-manager do) leaves it linked
      // in the old directory, while every name this process uses now leads into the new one,
      // whose writers lock another file.
      let status = try descriptor.status()
      if status.linkCount == 1, isAtLockName(status) { return status }
      try? descriptor.unlock()
      closeLockFile()
      if status.linkCount > 1 {
        throw RefusedEntry(path: paths.lock, reason: .hardLinked(count: status.linkCount))
      }
    }
    throw RefusedEntry(path: paths.lock, reason: .keepsDisappearing)
  }

  /// Whether the entry at the lock file's name is the inode of `status` (the open lock file).
  private func isAtLockName(_ status: EntryStatus) -> Bool {
    // Made when the lock file was opened (see `openAnchor(creating:)`).
    guard let lockPath = namesForCalls?.lockPath.cPath, let atName = try? lockPath.entryStatusIfPresent() else {
      return false
    }
    return atName.device == status.device && atName.inode == status.inode
  }

  /// Where the operation holding the lock finds the target and scratch entries: in the
  /// directory of the lock file it holds (see ``EntryNames``), or by whole paths when it holds
  /// no lock file (a read where none exists). Call holding the in-process lock.
  var entries: EntryNames {
    anchor?.names ?? .wholePaths(of: paths)
  }

  /// Opens the directory, then the lock file in it: for writing when `creating` (an exclusive
  /// lock, which may create it and its directory), for reading when `readingOnly`, otherwise
  /// for writing when permitted and for reading when not.
  ///
  /// - Returns: `false` when there is no lock file and not `creating`.
  /// - Throws: A ``RefusedEntry`` (a planted link on the way when `creating`, or an entry that
  ///   is not a regular file), or ``LockFileUnavailable``.
  private func openLockFile(creating: Bool, readingOnly: Bool = false) throws -> Bool {
    if creating {
      // A write creates and writes only where it would without a link another user planted on
      // the way (see `CreationGround`); a read through one still reads.
      if let link = try CreationGround.of(paths.directory).plantedLink {
        throw RefusedEntry(path: link, reason: .plantedLink)
      }
    }
    // Twice at most: a directory removed between its opening and the lock file's creation in
    // it is made again, once.
    for attempt in 0..<2 {
      guard let anchor = try openAnchor(creating: creating) else { return false }
      do {
        let isOpen = try openLockFile(in: anchor, creating: creating, readingOnly: readingOnly)
        if isOpen { self.anchor = anchor } else { anchor.descriptor.closeIgnoringFailure() }
        return isOpen
      } catch let error as LockFileUnavailable where error.cause == .noSuchFileOrDirectory && creating && attempt == 0 {
        anchor.descriptor.closeIgnoringFailure()
      } catch {
        anchor.descriptor.closeIgnoringFailure()
        throw error
      }
    }
    throw LockFileUnavailable(path: paths.lock, forWriting: creating, cause: .noSuchFileOrDirectory)
  }

  /// Opens the lock file's directory, creating it (and the directories above it) when
  /// `creating`; `nil` when there is none and not `creating`.
  private func openAnchor(creating: Bool) throws -> Anchor? {
    let names = namesForCalls ?? NamesForCalls(of: paths)
    namesForCalls = names
    do {
      do {
        return try Anchor(opening: paths, names: names)
      } catch .noSuchFileOrDirectory where creating {
        try paths.directory.createDirectories(permissions: directoryPermissions)
        return try Anchor(opening: paths, names: names)
      }
    } catch .noSuchFileOrDirectory where !creating {
      return nil
    } catch {
      throw LockFileUnavailable(path: paths.lock, forWriting: creating, cause: error)
    }
  }

  /// Opens the lock file in `anchor`'s directory: see ``openLockFile(creating:readingOnly:)``.
  private func openLockFile(in anchor: Anchor, creating: Bool, readingOnly: Bool) throws -> Bool {
    func open(writable: Bool, creatingWith permissions: FilePermissions? = nil) throws -> FileDescriptor {
      try RegularFile.open(
        anchor.lockName, in: anchor.names, reportingAs: paths.lock, writable: writable, creatingWith: permissions
      ).descriptor
    }
    if readingOnly, !creating {
      do {
        lockDescriptor = try open(writable: false)
      } catch let error as Errno where error == .noSuchFileOrDirectory {
        return false
      } catch let error as Errno {
        throw LockFileUnavailable(path: paths.lock, forWriting: false, cause: error)
      }
      lockIsWritable = false
      return true
    }
    let permissions = creating ? filePermissions : nil
    do {
      do {
        lockDescriptor = try open(writable: true, creatingWith: permissions)
      } catch let error as Errno where error == .permissionDenied && creating {
        // `fs.protected_regular` refuses `O_CREAT` on another user's existing file in a sticky
        // directory, to root as well: the lock file is there, so open it as it is. (When it is
        // not, the refusal was the directory's.)
        do {
          lockDescriptor = try open(writable: true)
        } catch let retry as Errno where retry == .noSuchFileOrDirectory {
          throw error
        }
      }
      lockIsWritable = true
    } catch let error as Errno where error == .noSuchFileOrDirectory && !creating {
      return false
    } catch let error as Errno where !creating && Self.mayReadInstead(error) {
      // A reader may lack write permission on another user's lock file, or the file system may
      // be mounted read-only: a shared lock needs only read access.
      do {
        lockDescriptor = try open(writable: false)
      } catch let error as Errno {
        throw LockFileUnavailable(path: paths.lock, forWriting: false, cause: error)
      }
      lockIsWritable = false
    } catch let error as Errno {
      throw LockFileUnavailable(path: paths.lock, forWriting: creating, cause: error)
    }
    return true
  }

  /// Whether a failure to open the lock file for writing leaves opening it for reading.
  private static func mayReadInstead(_ error: Errno) -> Bool {
    error == .permissionDenied || error == .readOnlyFileSystem || error == .notPermitted
  }

  private func closeLockFile() {
    lockDescriptor?.closeIgnoringFailure()
    lockDescriptor = nil
    lockIsWritable = false
    anchor?.descriptor.closeIgnoringFailure()
    anchor = nil
  }

  /// A lock file's directory, open, and the names a locked operation uses in it.
  private struct Anchor {
    let descriptor: FileDescriptor
    let names: EntryNames
    let lockName: CPath

    /// Opens the directory of `paths` (`O_PATH`: looking names up in it needs no permission on
    /// it beyond what a whole path needs; a symbolic link on the way is followed, as a whole
    /// path follows it). The names are `names`', which the lock keeps.
    init(opening paths: CompanionPaths, names: NamesForCalls) throws(Errno) {
      let directory = try systemCall {
        paths.directory.withPlatformString { shared_state_open_directory_path($0) }
      }
      descriptor = FileDescriptor(rawValue: directory)
      self.names = EntryNames(directory: directory, target: names.target.cPath, scratch: names.scratch.cPath)
      lockName = names.lock.cPath
    }
  }

  /// The names of a path's entries in their directory, and the lock file's whole path (for the
  /// check every lock makes, ``isAtLockName(_:)``), as C strings.
  private struct NamesForCalls {
    let target: PlatformPath
    let scratch: PlatformPath
    let lock: PlatformPath
    let lockPath: PlatformPath

    init(of paths: CompanionPaths) {
      target = PlatformPath(FilePath(paths.name))
      scratch = PlatformPath(FilePath(paths.scratchName))
      lock = PlatformPath(FilePath(paths.lockName))
      lockPath = PlatformPath(paths.lock)
    }
  }

  // MARK: The page

  /// Maps the lock file's page, growing the file to a page first. Call holding the exclusive
  /// lock.
  private func preparePage(_ lockStatus: EntryStatus) throws {
    guard let descriptor = lockDescriptor else { return }
    var status = lockStatus
    let inode = status.inode
    // A page a look mapped for reading only is mapped again for writing: the lock is exclusive,
    // so the descriptor is open for writing.
    if pageState.withLock({ $0.inode == inode && $0.page?.isWritable != false }) { return }
    isOnNetwork = (try? descriptor.isOnNetworkFileSystem()) ?? true
    if status.size < CoordinationPage.length, status.owner == ProcessCredentials.user {
      // Allocated, not merely sized: a page of a sparse file could fault for want of space
      // when written through the mapping.
      try descriptor.allocate(length: Int64(CoordinationPage.length))
      status = try descriptor.status()
    }
    let mapped = isOnNetwork ? nil : CoordinationPage.map(descriptor, status: status)
    pageState.withLock { $0 = PageState(page: mapped, inode: inode) }
  }

  /// The page, mapping it now (for a path that has only been watched so far) when `mapping`.
  ///
  /// A lock file this process may not write (another user's, or on a read-only mount) is mapped
  /// for reading only: its looks need no more. (Without it, every change that such a reader
  /// watched cost it a failed `open` of the lock file at each look, then a locked read of the
  /// file: 21 system calls instead of 5.)
  func page(mapping: Bool) -> CoordinationPage? {
    pageState.withLock { state in
      if state.inode != nil || !mapping { return state.page }
      let opened: (descriptor: FileDescriptor, status: EntryStatus)
      var isWritable = true
      do {
        opened = try RegularFile.open(paths.lock, writable: true)
      } catch let error as Errno where Self.mayReadInstead(error) {
        guard let readable = try? RegularFile.open(paths.lock, writable: false) else { return nil }
        opened = readable
        isWritable = false
      } catch {
        return nil
      }
      // Another name would be a file elsewhere, hard-linked here: it is not mapped.
      guard opened.status.linkCount == 1 else {
        opened.descriptor.closeIgnoringFailure()
        return nil
      }
      let onNetwork = (try? opened.descriptor.isOnNetworkFileSystem()) ?? true
      state.page =
        onNetwork ? nil : CoordinationPage.map(opened.descriptor, status: opened.status, writable: isWritable)
      state.inode = opened.status.inode
      opened.descriptor.closeIgnoringFailure()
      return state.page
    }
  }
}

/// The error for a transaction begun on a thread that is already inside one on the same file
/// (a `withLock` of another key for the same file, inside a `withLock`): waiting would never end.
struct NestedTransaction: Error, CustomStringConvertible {
  let path: String

  var description: String {
    "\(path) is already being changed on this thread (a withLock of another key for the same file, inside a withLock)"
  }
}
