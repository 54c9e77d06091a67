import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A path as a dictionary key, hashed once, in one pass over its bytes.
///
/// `FilePath` hashes itself one byte at a time, through one `Hasher` call each: routing an event
/// to the handles of its directory cost more in that hashing than in everything else it did.
/// And a dictionary compares every key its probe passes: the paths of one directory's files
/// share most of their bytes, so the hashes are compared first.
struct PathKey: Hashable, Sendable {
  let path: FilePath
  private let bytesHash: Int

  init(_ path: FilePath) {
    self.path = path
    bytesHash = path.withPlatformString { characters in
      var hasher = Hasher()
      hasher.combine(bytes: UnsafeRawBufferPointer(start: characters, count: strlen(characters)))
      return hasher.finalize()
    }
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(bytesHash)
  }

  static func == (lhs: PathKey, rhs: PathKey) -> Bool {
    lhs.bytesHash == rhs.bytesHash && lhs.path == rhs.path
  }
}
