import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The error for an entry beside a stored file (the target, its lock file or its scratch file)
/// that the library will not open, write or replace, because doing so could reach outside the
/// directory, hang, or destroy something that is not a stored value.
///
/// In a directory other users can write, any of these may be planted on purpose.
struct RefusedEntry: Error, Equatable, CustomStringConvertible {
  /// Why the entry is refused.
  enum Reason: Equatable {
    /// A symbolic link: following it could reach any file on the system.
    case symbolicLink
    /// A directory: replacing it would move it aside.
    case directory
    /// A FIFO, socket or device: opening or reading it may hang or have effects.
    case notRegularFile
    /// A file with other names (hard links), which may be outside the directory.
    case hardLinked(count: Int)
    /// A lock file that keeps being removed or replaced as soon as it is locked.
    case keepsDisappearing
    /// A symbolic link on the way to the directory that another user controls (see
    /// ``CreationGround``): nothing is created or written through it.
    case plantedLink
    /// A target whose mode lets nobody write it (`chmod a-w`): someone locked the value down.
    case readOnly(mode: mode_t)
  }

  /// The entry's path.
  let path: String
  let reason: Reason

  init(path: FilePath, reason: Reason) {
    self.path = path.string
    self.reason = reason
  }

  /// The reason a write may not replace (or remove) the target whose entry is `status`, or `nil`
  /// when it may: a regular file with a write permission bit for someone.
  ///
  /// A file that nobody may write (`0444`, `0400`) has been locked down, as an administrator
  /// locks a setting: it is not replaced, by root either (as root may run a file only when some
  /// execute bit is set). Its value stays until someone gives write permission back.
  init?(path: FilePath, replacing status: EntryStatus) {
    if let refusal = RefusedEntry(path: path, type: status.type) {
      self = refusal
    } else if status.mode & 0o222 == 0 {
      self.init(path: path, reason: .readOnly(mode: status.mode & 0o7777))
    } else {
      return nil
    }
  }

  /// The reason for an entry of `type`, or `nil` for a regular file.
  init?(path: FilePath, type: FileType) {
    switch type {
    case .regular: return nil
    case .symbolicLink: self.init(path: path, reason: .symbolicLink)
    case .directory: self.init(path: path, reason: .directory)
    default: self.init(path: path, reason: .notRegularFile)
    }
  }

  var description: String {
    switch reason {
    case .symbolicLink:
      "\(path) is a symbolic link, which is not followed (point the key at the file it links to)"
    case .directory:
      "\(path) is a directory, so it is not replaced"
    case .notRegularFile:
      "\(path) is not a regular file (a FIFO, socket or device), so it is not opened"
    case let .hardLinked(count):
      "\(path) has \(count) hard links, so it is not written (it may be another file's name)"
    case .keepsDisappearing:
      "\(path) keeps being removed or replaced as soon as it is locked, so writes cannot be coordinated"
    case .plantedLink:
      "\(path) is a symbolic link that another user controls (it belongs to neither this user nor root, in a directory others can write), so nothing is created or written through it"
    case let .readOnly(mode):
      "\(path) is read-only (mode 0\(String(mode, radix: 8))), so it is not replaced: give write permission back (chmod u+w) to change it"
    }
  }
}
