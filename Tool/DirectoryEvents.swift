import Foundation
import SharedStateCommandLine

/// Entries made in a directory (created, or renamed into it), as `inotify` reports them, for
/// the monitor of a whole suite: the library watches keys, and a key that does not exist yet
/// has no watch.
final class DirectoryEvents: Sendable {
  /// Starts watching `path`, calling `entriesMade` on a thread of its own after each batch of
  /// entries made there.
  ///
  /// - Throws: ``CommandError`` when the directory cannot be watched.
  init(_ path: String, entriesMade: @escaping @Sendable () -> Void) throws {
    let descriptor = inotify_init1(Int32(IN_CLOEXEC))
    guard descriptor >= 0 else {
      throw CommandError("changes to \(path) cannot be watched: \(String(cString: strerror(errno)))")
    }
    // A key's file arrives by a rename (the library's writes) or by being created (a shell's).
    let mask = UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_CLOSE_WRITE) | UInt32(IN_ONLYDIR)
    guard inotify_add_watch(descriptor, path, mask) >= 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw CommandError("changes to \(path) cannot be watched: \(reason)")
    }
    // A blocking read on a thread of its own, for as long as the process runs: the monitor
    // ends with it.
    Thread.detachNewThread {
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        guard count > 0 else { break }
        entriesMade()
      }
    }
  }
}
