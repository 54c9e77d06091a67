import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The inotify descriptors of the process, found through `/proc/self/fd` (libinotifytools does
/// not expose its own).
enum InotifyDescriptor {
  /// Every inotify descriptor the process has open.
  static func all() -> Set<Int32> {
    guard let directory = opendir("/proc/self/fd") else { return [] }
    defer { closedir(directory) }
    var found: Set<Int32> = []
    var target = [CChar](repeating: 0, count: 64)
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
      guard let descriptor = Int32(name) else { continue }
      let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
      guard length > 0 else { continue }
      if String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "anon_inode:inotify" {
        found.insert(descriptor)
      }
    }
    return found
  }

  /// Why libinotifytools could not start.
  enum Failure: Error, Equatable, CustomStringConvertible {
    /// The system refused an inotify instance (`EMFILE`: the user's
    /// `fs.inotify.max_user_instances` is reached).
    case system(Errno)
    /// The descriptor is 1024 or more, which `select()` cannot wait on.
    case descriptorTooLarge(Int32)
    /// The library's descriptor could not be told apart (another inotify descriptor was opened
    /// at the same moment); the next try will tell.
    case unidentified

    var errno: Errno? {
      if case let .system(errno) = self { return errno }
      return nil
    }

    var description: String {
      switch self {
      case .system(.tooManyOpenFiles):
        "inotify cannot start: the user's limit of inotify instances (fs.inotify.max_user_instances) is reached"
      case let .system(errno):
        "inotify cannot start: \(errno)"
      case .unidentified:
        "inotify's descriptor could not be told apart from another opened at the same moment"
      case let .descriptorTooLarge(descriptor):
        "inotify's descriptor would be \(descriptor), which select() cannot wait on: every descriptor below \(FD_SETSIZE) is taken"
      }
    }
  }
}
