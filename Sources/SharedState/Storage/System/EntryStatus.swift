import SystemPackage

// For the C types of owners, groups and modes (`uid_t`, `gid_t`, `mode_t`) only.
#if canImport(Glibc)
  import Glibc
#endif

/// What `stat` says of a file, as far as this library looks: its identity, type, mode, owner,
/// group and link count.
///
/// Made by the calls below rather than by swift-system's `Stat`: a write looks at five statuses
/// and hands each through several layers, and `Stat` (all of C's `struct stat`, 144 bytes) went
/// through `memmove` at each hand, inside swift-system's calls too: 76 copies a write.
/// This is half the size, and the compiler copies it inline.
struct EntryStatus: Sendable {
  /// Device, inode, size and timestamps: what tells a replaced or rewritten file.
  let identity: FileIdentity
  /// Type and permission bits (`st_mode`).
  let mode: mode_t
  let owner: uid_t
  let group: gid_t
  /// How many names the inode has (`st_nlink`).
  let linkCount: Int

  private init(_ status: stat) {
    identity = FileIdentity(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
      modificationSeconds: Int64(status.st_mtim.tv_sec), modificationNanoseconds: Int64(status.st_mtim.tv_nsec),
      changeSeconds: Int64(status.st_ctim.tv_sec), changeNanoseconds: Int64(status.st_ctim.tv_nsec)
    )
    mode = status.st_mode
    owner = status.st_uid
    group = status.st_gid
    linkCount = Int(status.st_nlink)
  }

  /// The status of the entry at `path` itself: a symbolic link is not followed. A relative
  /// `path` is looked up in `directory` (an open directory's descriptor, or `AT_FDCWD`).
  ///
  /// The corresponding C call is `fstatat(directory, path, &status, AT_SYMLINK_NOFOLLOW)`.
  init(ofEntryAt path: UnsafePointer<CChar>, in directory: CInt = AT_FDCWD) throws(Errno) {
    var status = stat()
    try systemCall { fstatat(directory, path, &status, AT_SYMLINK_NOFOLLOW) }
    self.init(status)
  }

  /// The status of the entry at `path` itself, or `nil` when there is none (`ENOENT`).
  init?(ifPresentAt path: UnsafePointer<CChar>, in directory: CInt = AT_FDCWD) throws(Errno) {
    do {
      try self.init(ofEntryAt: path, in: directory)
    } catch .noSuchFileOrDirectory {
      return nil
    }
  }

  /// The status of the open file `descriptor`.
  ///
  /// The corresponding C function is `fstat`.
  init(of descriptor: FileDescriptor) throws(Errno) {
    var status = stat()
    try systemCall { fstat(descriptor.rawValue, &status) }
    self.init(status)
  }

  var device: UInt64 { identity.device }
  var inode: UInt64 { identity.inode }
  var size: Int64 { identity.size }
  var type: FileType { FileMode(rawValue: mode).type }
}
