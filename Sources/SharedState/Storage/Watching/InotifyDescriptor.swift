import Foundation
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The inotify descriptor libinotifytools opens, which it neither exposes nor marks
/// close-on-exec.
enum InotifyDescriptor {
  /// Marks every inotify descriptor of the process close-on-exec, so that child processes do not
  /// inherit them, and checks that each can be waited on with `select()`, as the library does.
  ///
  /// - Returns: An error when a descriptor is too large for `select()`: waiting on it would
  ///   write past the descriptor set.
  static func protect() -> (any Error)? {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
      return nil
    }
    for entry in entries {
      guard let descriptor = Int32(entry),
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"))
          == "anon_inode:inotify"
      else { continue }
      let flags = fcntl(descriptor, F_GETFD)
      if flags >= 0 {
        _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC)
      }
      if descriptor >= FD_SETSIZE {
        return DescriptorTooLarge(descriptor: descriptor)
      }
    }
    return nil
  }

  /// The error for an inotify descriptor that `select()` cannot wait on.
  struct DescriptorTooLarge: Error, CustomStringConvertible {
    let descriptor: Int32
    var description: String {
      "The inotify descriptor is \(descriptor), too large for select(): use shared file storage "
        + "before the process opens \(FD_SETSIZE) files."
    }
  }
}
