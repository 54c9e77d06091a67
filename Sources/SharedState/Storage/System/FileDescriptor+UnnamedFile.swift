import CSystemCalls
import SystemPackage

extension FileDescriptor {
  /// Opens a new unnamed regular file in `directory`, readable and writable by this process
  /// only, that vanishes with its last descriptor and is not inherited by child processes.
  ///
  /// The corresponding C call is `open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)`.
  static func openUnnamedFile(in directory: FilePath) throws(Errno) -> FileDescriptor {
    let raw = try systemCall { directory.withPlatformString { shared_state_open_unnamed_file($0) } }
    return FileDescriptor(rawValue: raw)
  }
}
