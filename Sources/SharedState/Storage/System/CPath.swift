import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A path as a C string that a ``PlatformPath`` keeps, and the system calls that name it.
///
/// A plain pointer, so that copying it (into ``EntryNames``, for every call of a write) retains
/// and releases nothing: when the names were `PlatformPath` references, they cost each write
/// about eight retains and as many releases (52.0 retains per write before, 44.4 after, counted
/// with a uprobe on `swift_retain`). Valid only while the `PlatformPath` that made it lives;
/// its owners (``CompanionPaths``, ``PathLock``) keep theirs for their whole lives, and hand out
/// `CPath`s only for calls made while they live.
struct CPath: @unchecked Sendable {
  // `@unchecked Sendable`: the characters are written once, before the owning `PlatformPath`
  // is published, and only read after.
  let characters: UnsafePointer<CChar>

  /// What the system knows of the entry at this path itself (a symbolic link is not followed);
  /// `nil` when there is no entry.
  ///
  /// - Parameter directory: Where a relative path is looked up: the working directory
  ///   (`AT_FDCWD`), or an open directory's descriptor.
  ///
  /// See ``EntryStatus/init(ifPresentAt:in:)``.
  func entryStatusIfPresent(in directory: CInt = AT_FDCWD) throws(Errno) -> EntryStatus? {
    try EntryStatus(ifPresentAt: characters, in: directory)
  }

  /// What the system knows of the entry at this path itself; an error when there is none.
  func entryStatus(in directory: CInt = AT_FDCWD) throws(Errno) -> EntryStatus {
    try EntryStatus(ofEntryAt: characters, in: directory)
  }

  /// Swaps the files at this path and `other` (one file system) in one atomic step: a process
  /// opening either path sees one file or the other, never neither.
  ///
  /// The corresponding C call is `renameat2(directory, self, directory, other, RENAME_EXCHANGE)`.
  func exchange(with other: CPath, in directory: CInt = AT_FDCWD) throws(Errno) {
    try systemCall { shared_state_exchange(directory, characters, directory, other.characters) }
  }

  /// Renames this entry to `other`, replacing what is there.
  ///
  /// The corresponding C call is `renameat(directory, self, directory, other)`.
  func rename(to other: CPath, in directory: CInt = AT_FDCWD) throws(Errno) {
    try systemCall { renameat(directory, characters, directory, other.characters) }
  }

  /// Renames this entry to `other` only when nothing is there (`EEXIST` otherwise), in one
  /// atomic step; where the file system has no `RENAME_NOREPLACE`, links it there and removes
  /// this name.
  func renameWithoutReplacing(to other: CPath, in directory: CInt = AT_FDCWD) throws(Errno) {
    do {
      try systemCall { shared_state_rename_noreplace(directory, characters, directory, other.characters) }
      return
    } catch .invalidArgument, .notSupported {
      // No RENAME_NOREPLACE here: link into place, which fails on an existing name too.
    }
    try systemCall { linkat(directory, characters, directory, other.characters, 0) }
    try unlink(in: directory)
  }

  /// Removes this name.
  ///
  /// The corresponding C call is `unlinkat(directory, self, 0)`.
  func unlink(in directory: CInt = AT_FDCWD) throws(Errno) {
    try systemCall { unlinkat(directory, characters, 0) }
  }

  /// Opens the entry as ``FileDescriptor/openEntry(_:writable:creatingWith:exclusively:)`` does
  /// (no symbolic link followed, no wait for a FIFO, not inherited), relative to `directory`.
  ///
  /// The corresponding C call is `openat`.
  func openEntry(
    in directory: CInt,
    writable: Bool,
    creatingWith permissions: FilePermissions? = nil,
    exclusively: Bool = false
  ) throws(Errno) -> FileDescriptor {
    var flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (writable ? O_RDWR : O_RDONLY)
    if permissions != nil { flags |= O_CREAT }
    if exclusively { flags |= O_EXCL }
    let mode = mode_t(permissions?.rawValue ?? 0)
    return FileDescriptor(rawValue: try systemCall { openat(directory, characters, flags, mode) })
  }
}
