import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FilePath {
  /// What the system knows of the entry at this path itself (a symbolic link is not followed).
  ///
  /// See ``EntryStatus/init(ofEntryAt:)``.
  func entryStatus() throws(Errno) -> EntryStatus {
    try errnoOnly { try withPlatformString { try EntryStatus(ofEntryAt: $0) } }
  }

  /// The entry's status, or `nil` when there is no entry at this path.
  func entryStatusIfPresent() throws(Errno) -> EntryStatus? {
    try errnoOnly { try withPlatformString { try EntryStatus(ifPresentAt: $0) } }
  }

  /// Renames the file at this path to `other`, replacing what is there in one atomic step.
  ///
  /// The corresponding C function is `rename`.
  func rename(to other: FilePath) throws(Errno) {
    try systemCall {
      withPlatformString { source in other.withPlatformString { target in Glibc.rename(source, target) } }
    }
  }

  /// Gives the file at this path the name `other` only if nothing is at `other`, in one atomic
  /// step: it never replaces a file that someone else put there.
  ///
  /// The corresponding C call is `renameat2(AT_FDCWD, self, AT_FDCWD, other, RENAME_NOREPLACE)`;
  /// where the file system does not support that flag, `link` then `unlink` of this path, which
  /// refuse an existing `other` as well.
  ///
  /// - Throws: `Errno.fileExists` when something is at `other`.
  func renameWithoutReplacing(to other: FilePath) throws(Errno) {
    do {
      try systemCall {
        withPlatformString { source in
          other.withPlatformString { target in shared_state_rename_noreplace(AT_FDCWD, source, AT_FDCWD, target) }
        }
      }
      return
    } catch .invalidArgument, .notSupported {
      // No RENAME_NOREPLACE here: link into place, which fails on an existing name too.
    }
    try systemCall {
      withPlatformString { source in other.withPlatformString { target in Glibc.link(source, target) } }
    }
    try unlink()
  }

  /// Removes the directory entry at this path (not a directory).
  ///
  /// The corresponding C function is `unlink`.
  func unlink() throws(Errno) {
    try systemCall { withPlatformString { Glibc.unlink($0) } }
  }
}
