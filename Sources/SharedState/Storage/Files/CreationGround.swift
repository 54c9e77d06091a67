import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What stands between this process and a directory it may create files in: who else could
/// have put a symbolic link on the way, and who else can write the directory.
///
/// Found by walking the path one name at a time with `fstatat` (never following a link without
/// judging it first), as the kernel resolves it.
///
/// - A link is *planted* when another user controls it: it belongs to neither this process's
///   user nor root, and lies in a directory that someone other than this user and root can write.
///   This is the rule of `fs.protected_symlinks` (a link in a sticky world-writable directory is
///   followed only when its owner is the follower or the directory's owner), made stricter and
///   applied whatever the sysctl says: a link owned by another user in that user's own directory
///   can send the follower anywhere, too. Nothing is created through a planted link.
/// - A directory is *shared* when someone other than this user and root can write it (see
///   ``isWritableByOthers(_:)``). A read creates nothing there: a file it left would belong to
///   this user, and could stop the others from writing that key (in a sticky directory nobody
///   may replace another user's file).
struct CreationGround {
  /// The first planted link on the way, when there is one (its own path, links before it
  /// resolved).
  var plantedLink: FilePath?
  /// The directory files would be created in (the nearest one that exists, when the directory
  /// does not yet), when it is shared.
  var sharedDirectory: FilePath?

  /// Walks `directory`, an absolute path.
  ///
  /// - Throws: The system's error when a name on the way cannot be looked at (`ELOOP` after 40
  ///   links, as the kernel).
  init(walking directory: FilePath) throws(Errno) {
    let user = ProcessCredentials.user
    let group = ProcessCredentials.group
    var resolved = "/"
    var resolvedStatus = try FilePath("/").entryStatus()
    // Names still to walk, the next one last.
    var pending = Array(Self.names(of: directory.string).reversed())
    var links = 0
    while let name = pending.popLast() {
      if name == "." { continue }
      if name == ".." {
        resolved = FilePath(resolved).directoryAndName?.directory.string ?? "/"
        resolvedStatus = try FilePath(resolved).entryStatus()
        continue
      }
      let next = resolved == "/" ? "/" + name : resolved + "/" + name
      guard let status = try FilePath(next).entryStatusIfPresent() else { break }
      if status.type == .symbolicLink {
        links += 1
        if links > 40 { throw Errno.tooManySymbolicLinkLevels }
        if status.owner != user, status.owner != 0, Self.isWritableByOthers(resolvedStatus, user: user, group: group) {
          plantedLink = FilePath(next)
          return
        }
        let target = try FilePath(next).symbolicLinkTarget().string
        if target.hasPrefix("/") {
          resolved = "/"
          resolvedStatus = try FilePath("/").entryStatus()
        }
        pending.append(contentsOf: Self.names(of: target).reversed())
        continue
      }
      guard status.type == .directory else { break }
      resolved = next
      resolvedStatus = status
    }
    if Self.isWritableByOthers(resolvedStatus, user: user, group: group) { sharedDirectory = FilePath(resolved) }
  }

  /// Whether a directory of `status` can be written by someone other than `user` and root: it
  /// is writable by all, or by its group (unless it is `user`'s own directory of `user`'s own
  /// group), or its owner is another user who may write it.
  static func isWritableByOthers(_ status: EntryStatus, user: uid_t, group: gid_t) -> Bool {
    let mode = status.mode
    if mode & 0o002 != 0 { return true }
    if mode & 0o020 != 0, status.owner != user || status.group != group { return true }
    return status.owner != user && status.owner != 0 && mode & 0o200 != 0
  }

  private static func names(of path: String) -> [String] {
    path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }
}
