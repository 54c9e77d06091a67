import Foundation
import TestSupport

/// A tmpfs of its own, mounted on a fresh temporary directory: a place a test may fill up or
/// remount read-only. Needs root. The test unmounts it (`defer { tmpfs.unmount() }`): not left
/// to a deinit, which may run as soon as the object's last use, before the test is over.
final class MountedTmpfs: Sendable {
  /// The directory the tmpfs is mounted on.
  let mountPoint: TemporaryDirectory

  /// The error for a `mount` that failed, with what it printed.
  struct MountFailed: Error, CustomStringConvertible {
    let arguments: [String]
    let output: String
    var description: String { "mount \(arguments.joined(separator: " ")) failed: \(output)" }
  }

  /// Mounts a tmpfs of `size` (as `mount -o size=` takes it: "64k", "1m").
  init(size: String) throws {
    mountPoint = try TemporaryDirectory()
    try Self.mount(["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mountPoint.url.path])
  }

  /// Unmounts the tmpfs.
  func unmount() {
    ChildProcess.run("/bin/umount", [mountPoint.url.path])
  }

  /// The path of `name` on the tmpfs.
  func path(_ name: String) -> String {
    mountPoint.path(name)
  }

  /// Remounts the tmpfs read-only, or read-write again.
  func remount(readOnly: Bool) throws {
    try Self.mount(["-o", readOnly ? "remount,ro" : "remount,rw", mountPoint.url.path])
  }

  private static func mount(_ arguments: [String]) throws {
    // Foundation's `waitUntilExit` can miss a child's end (see ChildProcess): `run` waits with
    // waitpid.
    let mount = ChildProcess.run("/bin/mount", arguments)
    guard mount.status == 0 else { throw MountFailed(arguments: arguments, output: mount.output) }
  }
}
