import SystemPackage

/// The never-renamed file whose open-file-description lock excludes other processes from a
/// coordinated file, and whose first eight bytes count the writes made under it (the write
/// generation).
///
/// Not thread-safe: its owner, a ``FileCoordinator``, serialises every call with its in-process
/// lock, so one descriptor serves the whole process.
struct LockFile {
  let path: FilePath
  private let filePermissions: FilePermissions
  private let directoryPermissions: FilePermissions
  private var descriptor: FileDescriptor?
  private var isWritable = false

  init(path: FilePath, filePermissions: FilePermissions, directoryPermissions: FilePermissions) {
    self.path = path
    self.filePermissions = filePermissions
    self.directoryPermissions = directoryPermissions
  }

  /// Takes the lock.
  ///
  /// - Parameters:
  ///   - kind: Shared for readers, exclusive for writers.
  ///   - creating: Whether to create the lock file (and its directory) when missing.
  /// - Returns: `false` when the lock file does not exist and `creating` is `false`.
  mutating func acquire(_ kind: FileDescriptor.LockKind, creating: Bool) throws -> Bool {
    while true {
      if descriptor == nil || (kind == .exclusive && !isWritable) {
        guard try open(creating: creating, writable: kind == .exclusive) else { return false }
      }
      try descriptor!.lock(kind)
      // Someone may have removed the lock file (or its directory) since it was opened: a lock on
      // a file that no longer has a name excludes nobody. Start again on the one there now.
      if let held = try? descriptor!.stat(), held.linkCount > 0 {
        return true
      }
      close()
      if !creating && !path.exists { return false }
    }
  }

  /// Releases the lock.
  func release() {
    try? descriptor?.unlock()
  }

  /// The number of writes made under this lock file so far. Read it while holding the lock.
  func generation() -> UInt64 {
    descriptor.flatMap(Self.generation(in:)) ?? 0
  }

  /// The write generation stored at the start of an open lock file, or `nil` when it holds
  /// fewer than eight bytes (a lock file no write has gone through yet) or cannot be read.
  static func generation(in descriptor: FileDescriptor) -> UInt64? {
    var value: UInt64 = 0
    let count = try? withUnsafeMutableBytes(of: &value) {
      try descriptor.read(fromAbsoluteOffset: 0, into: $0)
    }
    return count == MemoryLayout<UInt64>.size ? UInt64(littleEndian: value) : nil
  }

  /// Stores the write generation. Call it while holding the exclusive lock.
  func setGeneration(_ generation: UInt64) throws {
    guard let descriptor else { return }
    var value = generation.littleEndian
    _ = try withUnsafeBytes(of: &value) { try descriptor.writeAll(toAbsoluteOffset: 0, $0) }
  }

  private mutating func open(creating: Bool, writable: Bool) throws -> Bool {
    close()
    var options: FileDescriptor.OpenOptions = [.closeOnExec]
    if creating { options.insert(.create) }
    do {
      descriptor = try FileDescriptor.open(path, .readWrite, options: options, permissions: filePermissions)
      isWritable = true
      return true
    } catch Errno.noSuchFileOrDirectory where creating {
      try path.removingLastComponent().createDirectories(permissions: directoryPermissions)
      descriptor = try FileDescriptor.open(path, .readWrite, options: options, permissions: filePermissions)
      isWritable = true
      return true
    } catch Errno.noSuchFileOrDirectory {
      return false
    } catch Errno.permissionDenied where !writable {
      // A reader may lack write permission on another user's lock file; a shared lock needs
      // only read access.
      descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
      isWritable = false
      return true
    }
  }

  private mutating func close() {
    try? descriptor?.close()
    descriptor = nil
    isWritable = false
  }
}
