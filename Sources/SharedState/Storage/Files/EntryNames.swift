import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Where an operation that holds a path's lock finds the path's entries: the directory it looks
/// them up in, and their names there.
///
/// Holding a lock file, the names are bare, and looked up in the directory that holds that lock
/// file, opened before it (see ``PathLock/entries``). A directory on the path swapped for another
/// while the lock is held (a symbolic link retargeted, as stow and home-manager do) then leaves
/// every entry of the operation in the directory whose lock it holds, instead of leading its later
/// names into the new directory, whose writers lock another file. Without a lock file open (a
/// read where no process ever locked the path), the names are whole paths.
///
/// The names are ``CPath``s, which their owners keep: a ``PathLock`` (``PathLock/entries``)
/// or ``CompanionPaths``, for their whole lives. Use them only while the lock that handed them
/// out lives.
struct EntryNames {
  /// The open directory the names are looked up in, or `AT_FDCWD` for whole paths.
  let directory: CInt
  /// The stored file's name.
  let target: CPath
  /// The scratch file's name.
  let scratch: CPath

  /// The whole paths of `paths`, looked up from the root (kept by `paths` for its life).
  static func wholePaths(of paths: CompanionPaths) -> EntryNames {
    EntryNames(directory: AT_FDCWD, target: paths.targetForCalls.cPath, scratch: paths.scratchForCalls.cPath)
  }
}
