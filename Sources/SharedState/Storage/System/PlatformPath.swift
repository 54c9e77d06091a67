import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A path kept as the C string the system calls take, made once.
///
/// `FilePath` makes its C string on each call, through swift-system's generic closures, which
/// run unspecialised here: about a tenth of a write's time in user space went to that for the
/// three paths a write names. The names a transaction uses are kept in this form (see
/// ``EntryNames``), as is the target's path that the looks events prompt name (see
/// ``CompanionPaths/targetForCalls``). The calls themselves are made through ``cPath``, which
/// is copied without reference counting.
final class PlatformPath: Sendable {
  let path: FilePath
  /// The C string, valid as long as this object lives.
  let cPath: CPath

  init(_ path: FilePath) {
    self.path = path
    cPath = path.withPlatformString { characters in
      guard let copy = strdup(characters) else { fatalError("out of memory copying a path") }
      return CPath(characters: UnsafePointer(copy))
    }
  }

  deinit {
    free(UnsafeMutablePointer(mutating: cPath.characters))
  }
}
