import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FilePath {
  /// Swaps the files at two paths of one file system in one atomic step: a process opening
  /// either path sees one file or the other, never neither.
  ///
  /// The corresponding C call is `renameat2(AT_FDCWD, self, AT_FDCWD, other, RENAME_EXCHANGE)`.
  func exchange(with other: FilePath) throws(Errno) {
    let result = withPlatformString { source in
      other.withPlatformString { target in
        shared_state_exchange(AT_FDCWD, source, AT_FDCWD, target)
      }
    }
    if result == -1 { throw Errno(rawValue: errno) }
  }

  /// Renames the file at this path to `other`, replacing what is there in one atomic step.
  ///
  /// The corresponding C function is `rename`.
  func rename(to other: FilePath) throws(Errno) {
    let result = withPlatformString { source in
      other.withPlatformString { target in Glibc.rename(source, target) }
    }
    if result == -1 { throw Errno(rawValue: errno) }
  }
}
