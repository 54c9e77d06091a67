import SystemPackage

/// A descriptor this process keeps open on one of the two inodes that alternate between a
/// stored file's target name and its scratch name, with the inode it is on.
struct OpenInode {
  let descriptor: FileDescriptor
  let device: UInt64
  let inode: UInt64
  /// The file's length as this process last left or saw it.
  var size: Int64

  init(descriptor: FileDescriptor, status: Stat) {
    self.descriptor = descriptor
    device = UInt64(status.rawValue.st_dev)
    inode = UInt64(status.rawValue.st_ino)
    size = Int64(status.rawValue.st_size)
  }

  /// Whether the entry `status` describes is this inode.
  func isInode(of status: Stat) -> Bool {
    device == UInt64(status.rawValue.st_dev) && inode == UInt64(status.rawValue.st_ino)
  }
}
