import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
  /// Opens a file, creating it with `permissions` (less the umask) when given, and failing when
  /// it exists already if `exclusively`.
  ///
  /// Every open refuses a symbolic link as the last component (`O_NOFOLLOW`: `ELOOP`), never
  /// waits for a FIFO's other end (`O_NONBLOCK`), and is not inherited by child processes
  /// (`O_CLOEXEC`). The caller checks what it opened with ``status()``.
  ///
  /// swift-system's `open`.
  static func openEntry(
    _ path: FilePath,
    writable: Bool,
    creatingWith permissions: FilePermissions? = nil,
    exclusively: Bool = false
  ) throws(Errno) -> FileDescriptor {
    var options: OpenOptions = [.noFollow, .nonBlocking, .closeOnExec]
    if permissions != nil { options.insert(.create) }
    if exclusively { options.insert(.exclusiveCreate) }
    return try errnoOnly {
      try open(path, writable ? .readWrite : .readOnly, options: options, permissions: permissions)
    }
  }

  /// Opens a directory for `fsync`.
  ///
  /// swift-system's `open` with `O_DIRECTORY`.
  static func openDirectory(_ path: FilePath) throws(Errno) -> FileDescriptor {
    try errnoOnly { try open(path, .readOnly, options: [.directory, .closeOnExec]) }
  }

  /// What the system knows of the open file.
  ///
  /// See ``EntryStatus/init(of:)``.
  func status() throws(Errno) -> EntryStatus {
    try EntryStatus(of: self)
  }

  /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
  ///
  /// swift-system's `read(fromAbsoluteOffset:into:)` (C: `pread`), repeated until the buffer is
  /// full or the end.
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    var total = 0
    while total < buffer.count {
      let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[total...])
      let count = try errnoOnly { try read(fromAbsoluteOffset: offset + Int64(total), into: rest) }
      if count == 0 { break }
      total += count
    }
    return total
  }

  /// Reads what one call gives at `offset`, up to `buffer.count` bytes: fewer at the end of the
  /// file, and wherever a file system returns less; none at or past the end.
  ///
  /// swift-system's `read(fromAbsoluteOffset:into:)` (C: `pread`), once.
  func readOnce(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    try errnoOnly { try read(fromAbsoluteOffset: offset, into: buffer) }
  }

  /// Writes all of `bytes` at `offset`.
  ///
  /// swift-system's `write(toAbsoluteOffset:_:)` (C: `pwrite`), repeated until everything is
  /// written.
  func write(at offset: Int64, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var total = 0
    while total < bytes.count {
      let rest = UnsafeRawBufferPointer(rebasing: bytes[total...])
      total += try errnoOnly { try write(toAbsoluteOffset: offset + Int64(total), rest) }
    }
  }

  /// Sets the file's length.
  ///
  /// swift-system's `resize(to:)` (C: `ftruncate`).
  func truncate(to length: Int64) throws(Errno) {
    try errnoOnly { try resize(to: length) }
  }

  /// Allocates the file's blocks up to `length`, growing it when shorter, so that writing them
  /// later (through a memory mapping, say) cannot fail for want of space.
  ///
  /// The corresponding C function is `posix_fallocate` (which returns the error, not `-1`).
  func allocate(length: Int64) throws(Errno) {
    while true {
      let result = posix_fallocate(rawValue, 0, off_t(length))
      if result == 0 { return }
      if result != EINTR { throw Errno(rawValue: result) }
    }
  }

  /// Changes the file's permissions.
  ///
  /// The corresponding C function is `fchmod`.
  func setPermissions(_ permissions: FilePermissions) throws(Errno) {
    try systemCall { fchmod(rawValue, permissions.rawValue) }
  }

  /// Changes the file's owner and group; `nil` leaves one as it is.
  ///
  /// The corresponding C function is `fchown`.
  func setOwner(_ owner: uid_t?, group: gid_t?) throws(Errno) {
    // -1 (all bits set) leaves the id as it is.
    try systemCall { fchown(rawValue, owner ?? uid_t.max, group ?? gid_t.max) }
  }

  /// Flushes the file's data and metadata to the storage device.
  ///
  /// The corresponding C function is `fsync`.
  func synchronize() throws(Errno) {
    try systemCall { fsync(rawValue) }
  }

  /// Closes the descriptor and reports the failure `close` returns (a deferred write error on
  /// some file systems). The descriptor is gone either way; `EINTR` is not retried.
  ///
  /// swift-system's `close()`.
  func closeReportingFailure() throws(Errno) {
    do {
      try errnoOnly { try close() }
    } catch .interrupted {
      // Linux has closed the descriptor all the same.
    }
  }

  /// Closes a descriptor that was only read, or whose failure is already being reported.
  func closeIgnoringFailure() {
    try? close()
  }

  /// The kinds of open-file-description lock.
  enum LockKind: CInt {
    /// Many holders at once; excludes exclusive holders.
    case shared = 1
    /// One holder; excludes every other holder.
    case exclusive = 2
  }

  /// Takes an open-file-description lock on the whole file, waiting until it is granted.
  ///
  /// The lock belongs to the open file description: another `open()` of the same file, in this
  /// process or another, is excluded, and the kernel releases it when the last descriptor of the
  /// description closes, including when the process dies. Taking a lock on a description that
  /// already holds one converts it.
  ///
  /// The corresponding C call is `fcntl(fd, F_OFD_SETLKW, …)`.
  func lock(_ kind: LockKind) throws(Errno) {
    try systemCall { shared_state_ofd_lock(rawValue, kind.rawValue, 1) }
  }

  /// Releases the open-file-description lock this descriptor holds.
  ///
  /// The corresponding C call is `fcntl(fd, F_OFD_SETLK, …)` with `F_UNLCK`.
  func unlock() throws(Errno) {
    try systemCall { shared_state_ofd_lock(rawValue, 0, 0) }
  }

  /// Maps the first `length` bytes of the file into memory, shared with every process that maps
  /// it, for reading and writing, or for reading only (a descriptor open for reading only can
  /// map no more). The mapping outlives the descriptor.
  ///
  /// The corresponding C function is `mmap` with `MAP_SHARED`.
  func mapShared(length: Int, writable: Bool = true) throws(Errno) -> UnsafeMutableRawPointer {
    let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
    guard let address = mmap(nil, length, protection, MAP_SHARED, rawValue, 0),
      address != MAP_FAILED
    else { throw Errno(rawValue: errno) }
    return address
  }

  /// Whether the file lives on a network file system, where a shared mapping is not coherent
  /// between machines.
  ///
  /// The corresponding C function is `fstatfs`.
  func isOnNetworkFileSystem() throws(Errno) -> Bool {
    var type = 0
    try systemCall { shared_state_file_system_type(rawValue, &type) }
    // NFS, SMB/CIFS, SMB2, AFS, Ceph, 9P, FUSE (which may be anything, sshfs among them).
    let networked: Set<Int> = [0x6969, 0xFF53_4D42, 0xFE53_4D42, 0x5346_414F, 0x00C3_6400, 0x0102_1997, 0x6573_5546]
    return networked.contains(type)
  }
}

/// Removes a mapping made by ``FileDescriptor/mapShared(length:)``.
///
/// The corresponding C function is `munmap`.
func unmapShared(_ address: UnsafeMutableRawPointer, length: Int) {
  _ = munmap(address, length)
}
