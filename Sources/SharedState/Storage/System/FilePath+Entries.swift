import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FilePath {
  /// What the system knows of the entry at this path itself (a symbolic link is not followed).
  ///
  /// See ``EntryStatus/init(ofEntryAt:in:)``.
  func entryStatus() throws(Errno) -> EntryStatus {
    try errnoOnly { try withPlatformString { try EntryStatus(ofEntryAt: $0) } }
  }

  /// The entry's status, or `nil` when there is no entry at this path.
  func entryStatusIfPresent() throws(Errno) -> EntryStatus? {
    try errnoOnly { try withPlatformString { try EntryStatus(ifPresentAt: $0) } }
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
    let source = PlatformPath(self)
    let destination = PlatformPath(other)
    try withExtendedLifetime((source, destination)) { () throws(Errno) in
      try source.cPath.renameWithoutReplacing(to: destination.cPath)
    }
  }

  /// Removes the directory entry at this path (not a directory).
  ///
  /// The corresponding C function is `unlink`.
  func unlink() throws(Errno) {
    try systemCall { withPlatformString { Glibc.unlink($0) } }
  }
}
