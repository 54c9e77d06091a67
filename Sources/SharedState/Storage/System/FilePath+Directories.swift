import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FilePath {
  /// The absolute, lexically normal path of a file URL: a relative path is resolved against the
  /// current directory, and `.`, `..` and repeated separators are removed without consulting
  /// the file system.
  init(normalizing url: URL) {
    var path = FilePath(url.path)
    if path.isRelative {
      path = FilePath(FileManager.default.currentDirectoryPath).pushing(path)
    }
    // Most paths are normal already: looking at the text is much cheaper than normalizing in
    // a debug build (see `FilePath.directoryAndName`).
    self = path.isAbsoluteAndLexicallyNormal ? path : path.lexicallyNormalized()
  }

  /// Creates this directory and any missing parents, each with `permissions` (less the umask).
  ///
  /// The corresponding C function is `mkdir`, once for each missing directory.
  func createDirectories(permissions: FilePermissions) throws(Errno) {
    if (try? entryStatus())?.type == .directory { return }
    var parent = self
    if parent.removeLastComponent(), !parent.isEmpty, parent != self {
      try parent.createDirectories(permissions: permissions)
    }
    do {
      try systemCall { withPlatformString { mkdir($0, permissions.rawValue) } }
    } catch .fileExists {
      // Made meanwhile by someone else.
    }
  }

  /// Whether something exists at this path (a dangling symbolic link counts).
  var exists: Bool {
    (try? entryStatus()) != nil
  }

  /// The names of the entries of this directory, as the bytes the file system holds (without
  /// `.` and `..`), in no particular order.
  ///
  /// Names are bytes, not text, on Linux: a caller decides what to make of those that are not
  /// UTF-8. The corresponding C functions are `opendir`, `readdir` and `closedir`.
  func directoryEntryNames() throws(Errno) -> [[UInt8]] {
    guard let stream = withPlatformString({ opendir($0) }) else { throw Errno(rawValue: errno) }
    defer { closedir(stream) }
    var names: [[UInt8]] = []
    while true {
      errno = 0
      guard let entry = readdir(stream) else {
        if errno != 0 { throw Errno(rawValue: errno) }
        return names
      }
      let name = Self.name(of: entry)
      if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
      names.append(name)
    }
  }

  /// The bytes of an entry's name, read through the pointer up to its terminating zero.
  ///
  /// Not through `entry.pointee`, which copies a whole `struct dirent` (280 bytes): an entry is
  /// only as long as its name (its `d_reclen`), and the copy of one that ends the C library's
  /// buffer reads past it, into memory that may not be mapped (a crash seen in the tests).
  private static func name(of entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
    let start = UnsafeRawPointer(entry) + MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    return Array(UnsafeRawBufferPointer(start: start, count: strlen(start.assumingMemoryBound(to: CChar.self))))
  }
}
