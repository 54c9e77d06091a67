import Synchronization
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
struct CreationGround: Sendable {
  /// The first planted link on the way, when there is one (its own path, links before it
  /// resolved).
  var plantedLink: FilePath?
  /// The directory files would be created in, when it exists and is shared. (A directory that
  /// does not exist yet is created as this process's own, and nobody else can write it; its
  /// name, in a shared directory, is taken from the others, as any write would take it.)
  var sharedDirectory: FilePath?

  /// Whether nobody but this user and root could change the answer: every name on the way lies
  /// in a directory of theirs that nobody else can write, or that is sticky and the name is
  /// theirs. On a path that is not settled, another user could swap a name for a link between
  /// this walk and the call that follows it.
  private(set) var isSettled = true

  /// The ground of `directory`, an absolute path: walked, or the answer of a walk less than a
  /// second old that nobody but this user and root could have changed since. (A program opening
  /// thousands of keys of one suite walks its path once, not twice per key.)
  ///
  /// - Throws: The system's error when a name on the way cannot be looked at (`ELOOP` after 40
  ///   links, as the kernel).
  static func of(_ directory: FilePath) throws(Errno) -> CreationGround {
    let key = PathKey(directory)
    let now = MonotonicClock.nanoseconds()
    let user = ProcessCredentials.user
    if let kept = settled.withLock({ $0[key] }), kept.user == user, now &- kept.time < 1_000_000_000 {
      return kept.ground
    }
    let ground = try CreationGround(walking: directory)
    if ground.isSettled {
      settled.withLock { kept in
        if kept.count >= 256 { kept.removeAll(keepingCapacity: true) }
        kept[key] = (ground, user, now)
      }
    }
    return ground
  }

  private static let settled = Mutex<[PathKey: (ground: CreationGround, user: uid_t, time: UInt64)]>([:])

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
    var isMissing = false
    while let name = pending.popLast() {
      if name == "." { continue }
      if name == ".." {
        resolved = FilePath(resolved).directoryAndName?.directory.string ?? "/"
        resolvedStatus = try FilePath(resolved).entryStatus()
        continue
      }
      let next = resolved == "/" ? "/" + name : resolved + "/" + name
      guard let status = try FilePath(next).entryStatusIfPresent() else {
        // The rest is created by this process, as directories of its own, which nobody else
        // can write: what it creates in them is no one else's business.
        isMissing = true
        break
      }
      if !Self.isSettled(status, in: resolvedStatus, user: user, group: group) { isSettled = false }
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
    // Another user's directory may be made writable by them at any time.
    if resolvedStatus.owner != user, resolvedStatus.owner != 0 { isSettled = false }
    if !isMissing, Self.isWritableByOthers(resolvedStatus, user: user, group: group) {
      sharedDirectory = FilePath(resolved)
    }
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

  /// Whether only `user` and root could replace or remove the entry of `status` in the
  /// directory of `directory`, or change what may be done there.
  private static func isSettled(_ status: EntryStatus, in directory: EntryStatus, user: uid_t, group: gid_t) -> Bool {
    guard directory.owner == user || directory.owner == 0 else { return false }
    let mode = directory.mode
    let othersMayWrite = mode & 0o002 != 0 || (mode & 0o020 != 0 && (directory.owner != user || directory.group != group))
    guard othersMayWrite else { return true }
    return mode & 0o1000 != 0 && (status.owner == user || status.owner == 0)
  }

  private static func names(of path: String) -> [String] {
    path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
  }
}
