import SystemPackage

/// Opening a stored file's entries: never through a symbolic link, never waiting on a FIFO, and
/// only when the entry is a regular file (anything else is a ``RefusedEntry``).
enum RegularFile {
  /// Opens `path` and checks that it is a regular file.
  ///
  /// - Returns: The descriptor, and the file's status as opened.
  static func open(
    _ path: FilePath,
    writable: Bool,
    creatingWith permissions: FilePermissions? = nil,
    exclusively: Bool = false
  ) throws -> (descriptor: FileDescriptor, status: EntryStatus) {
    try checked(path) { () throws(Errno) in
      try FileDescriptor.openEntry(path, writable: writable, creatingWith: permissions, exclusively: exclusively)
    }
  }

  /// Opens the entry `name` of the directory `names` are looked up in (see ``EntryNames``), as
  /// ``open(_:writable:creatingWith:exclusively:)`` opens a path; errors name `path`, the entry's
  /// whole path.
  static func open(
    _ name: CPath,
    in names: EntryNames,
    reportingAs path: FilePath,
    writable: Bool,
    creatingWith permissions: FilePermissions? = nil,
    exclusively: Bool = false
  ) throws -> (descriptor: FileDescriptor, status: EntryStatus) {
    try checked(path) { () throws(Errno) in
      try name.openEntry(in: names.directory, writable: writable, creatingWith: permissions, exclusively: exclusively)
    }
  }

  /// Runs `open`, and refuses what it opened unless it is a regular file.
  private static func checked(
    _ path: FilePath, _ open: () throws(Errno) -> FileDescriptor
  ) throws -> (descriptor: FileDescriptor, status: EntryStatus) {
    let descriptor: FileDescriptor
    do {
      descriptor = try open()
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
}
