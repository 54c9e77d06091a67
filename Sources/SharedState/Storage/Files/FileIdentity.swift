import SystemPackage

/// What `stat` says about a file that changes whenever the file is replaced or rewritten: enough
/// to notice a write by a program that does not take part in the locking, within the limits of
/// the file system's timestamp granularity.
struct FileIdentity: Equatable, Sendable {
  let device: DeviceID
  let inode: Inode
  let size: Int64
  let modificationSeconds: Int
  let modificationNanoseconds: Int
  let changeSeconds: Int
  let changeNanoseconds: Int

  init(_ stat: Stat) {
    device = stat.deviceID
    inode = stat.inode
    size = stat.size
    modificationSeconds = stat.st_mtim.tv_sec
    modificationNanoseconds = stat.st_mtim.tv_nsec
    changeSeconds = stat.st_ctim.tv_sec
    changeNanoseconds = stat.st_ctim.tv_nsec
  }

  /// The identity of what is at `path` itself (a symbolic link is not followed), or `nil`
  /// when there is nothing.
  init?(at path: FilePath) {
    guard let stat = try? path.stat(followTargetSymlink: false) else { return nil }
    self.init(stat)
  }
}
