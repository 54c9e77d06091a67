import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A path as a dictionary key, hashed in one pass over its bytes.
///
/// `FilePath` hashes itself one byte at a time, through one `Hasher` call each: routing an event
/// to the handles of its directory cost more in that hashing than in everything else it did.
struct PathKey: Hashable, Sendable {
  let path: FilePath

  init(_ path: FilePath) {
    self.path = path
  }

  func hash(into hasher: inout Hasher) {
    path.withPlatformString { characters in
      hasher.combine(bytes: UnsafeRawBufferPointer(start: characters, count: strlen(characters)))
    }
  }

  static func == (lhs: PathKey, rhs: PathKey) -> Bool {
    lhs.path == rhs.path
  }
}
