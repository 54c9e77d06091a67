import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
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
  /// process or another, is excluded, and the kernel releases the lock when the last descriptor
  /// of the description closes, including when the process dies. Taking a lock on a description
  /// that already holds one converts it.
  ///
  /// The corresponding C call is `fcntl(fd, F_OFD_SETLKW, …)`.
  func lock(_ kind: LockKind) throws(Errno) {
    try retryingOnInterrupt { shared_state_ofd_lock(rawValue, kind.rawValue, 1) }
  }

  /// Releases the open-file-description lock this descriptor holds.
  ///
  /// The corresponding C call is `fcntl(fd, F_OFD_SETLK, …)` with `F_UNLCK`.
  func unlock() throws(Errno) {
    try retryingOnInterrupt { shared_state_ofd_lock(rawValue, 0, 0) }
  }

  /// Flushes the file's data and metadata to the storage device.
  ///
  /// The corresponding C function is `fsync`.
  func synchronize() throws(Errno) {
    try retryingOnInterrupt { fsync(rawValue) }
  }
}

/// Runs a system call until it is not interrupted by a signal, turning `-1` into the `Errno`.
func retryingOnInterrupt(_ call: () -> CInt) throws(Errno) {
  while true {
    if call() != -1 { return }
    let error = Errno(rawValue: errno)
    if error != .interrupted { throw error }
  }
}
