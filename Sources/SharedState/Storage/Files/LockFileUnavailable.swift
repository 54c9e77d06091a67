import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The error for a lock file (see ``CompanionPaths``) that cannot be opened as a read or a write
/// needs it: its path and the real cause, rather than a failure to read the value it guards.
///
/// A read needs to open the lock file for reading (its shared lock), a write for writing (its
/// exclusive lock): another user's lock file, or one on a read-only file system, may allow the
/// first and not the second.
struct LockFileUnavailable: Error, CustomStringConvertible {
  /// The lock file's path.
  let path: String
  /// Whether it was opened for a write (its exclusive lock).
  let forWriting: Bool
  /// The system's error.
  let cause: Errno
  /// The lock file's owner, when it exists.
  let owner: uid_t?

  init(path: FilePath, forWriting: Bool, cause: Errno) {
    self.path = path.string
    self.forWriting = forWriting
    self.cause = cause
    owner = (try? path.entryStatusIfPresent())?.owner
  }

  var description: String {
    let use = forWriting ? "writing" : "reading"
    switch cause {
    case .readOnlyFileSystem:
      return "its lock file \(path) cannot be opened for \(use) on a read-only file system (\(cause))"
    case .permissionDenied, .notPermitted:
      if let owner, owner != ProcessCredentials.user {
        return "its lock file \(path) belongs to user \(owner), and this user may not open it for \(use) (\(cause))"
      }
      return "its lock file \(path) cannot be opened for \(use) (\(cause))"
    default:
      return "its lock file \(path) cannot be opened for \(use) (\(cause))"
    }
  }
}
