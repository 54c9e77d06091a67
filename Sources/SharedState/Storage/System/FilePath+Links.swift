import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FilePath {
  /// What the symbolic link at this path points to, as the link holds it (not resolved).
  ///
  /// The corresponding C function is `readlink`, with a larger buffer until the target fits.
  func symbolicLinkTarget() throws(Errno) -> FilePath {
    var capacity = 256
    while true {
      var buffer = [CChar](repeating: 0, count: capacity)
      let length = try systemCall { withPlatformString { readlink($0, &buffer, capacity) } }
      // A target that fills the buffer may have been cut short.
      if length < capacity {
        return FilePath(String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
      }
      capacity *= 2
    }
  }
}
