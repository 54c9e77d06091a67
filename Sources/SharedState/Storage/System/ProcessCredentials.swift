#if canImport(Glibc)
  import Glibc
#endif

/// Who this process is, as the file system judges it: its effective user and groups.
enum ProcessCredentials {
  /// The effective user ID.
  ///
  /// The corresponding C function is `geteuid` (it cannot fail).
  static var user: uid_t { geteuid() }

  /// The effective group ID.
  ///
  /// The corresponding C function is `getegid` (it cannot fail).
  static var group: gid_t { getegid() }

  /// Whether this process may give its files `group`: its effective group or a supplementary
  /// one.
  ///
  /// The corresponding C functions are `getegid` and `getgroups`.
  static func isMember(of group: gid_t) -> Bool {
    if getegid() == group { return true }
    let count = getgroups(0, nil)
    guard count > 0 else { return false }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let found = getgroups(count, &groups)
    return groups.prefix(Int(max(found, 0))).contains(group)
  }
}
