import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A path kept as the C string the system calls take, made once.
///
/// `FilePath` makes its C string on each call, through swift-system's generic closures, which
/// run unspecialised here: about a tenth of a write's time in user space went to that for the
/// three paths a write names. The paths a write names on every transaction are kept in this form
/// (see ``CompanionPaths/targetForCalls`` and ``CompanionPaths/scratchForCalls``).
final class PlatformPath: Sendable {
  let path: FilePath
  /// `path`'s bytes and a final NUL. Safe to share (hence `nonisolated(unsafe)`): written once,
  /// here, before the object is published, only read after, and freed by `deinit` alone.
  private nonisolated(unsafe) let characters: UnsafeMutablePointer<CChar>

  init(_ path: FilePath) {
    self.path = path
    characters = path.withPlatformString { characters in
      guard let copy = strdup(characters) else { fatalError("out of memory copying a path") }
      return copy
    }
  }

  deinit {
    free(characters)
  }

  /// What the system knows of the entry at this path itself (a symbolic link is not followed);
  /// `nil` when there is no entry.
  ///
  /// See ``EntryStatus/init(ifPresentAt:)``.
  func entryStatusIfPresent() throws(Errno) -> EntryStatus? {
    try EntryStatus(ifPresentAt: characters)
  }

  /// Swaps the files at this path and `other` (one file system) in one atomic step: a process
  /// opening either path sees one file or the other, never neither.
  ///
  /// The corresponding C call is `renameat2(AT_FDCWD, self, AT_FDCWD, other, RENAME_EXCHANGE)`.
  func exchange(with other: PlatformPath) throws(Errno) {
    try systemCall { shared_state_exchange(AT_FDCWD, characters, AT_FDCWD, other.characters) }
  }
}
