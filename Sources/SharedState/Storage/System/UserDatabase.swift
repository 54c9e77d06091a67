import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The system's user database (`/etc/passwd`, or what the name service switch consults).
enum UserDatabase {
  /// The home directory the database gives the process's real user, or `nil` when the user has
  /// no entry.
  ///
  /// The corresponding C functions are `getuid` and `getpwuid_r`, with a larger buffer until
  /// the entry fits.
  static func homeDirectoryOfRealUser() throws(Errno) -> String? {
    let user = getuid()
    var capacity = 1024
    while true {
      var entry = passwd()
      var found: UnsafeMutablePointer<passwd>?
      // The entry's strings point into the buffer: it must outlive reading them.
      let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: capacity)
      defer { buffer.deallocate() }
      do {
        try systemCallReturningError { getpwuid_r(user, &entry, buffer, capacity, &found) }
      } catch .outOfRange {
        capacity *= 2
        continue
      }
      guard found != nil, let directory = entry.pw_dir else { return nil }
      return String(cString: directory)
    }
  }
}
