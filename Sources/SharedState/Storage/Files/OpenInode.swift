import SystemPackage

/// A descriptor this process keeps open on one of the two inodes that alternate between a
/// stored file's target name and its scratch name, with the inode it is on.
struct OpenInode {
  let descriptor: FileDescriptor
  let device: UInt64
  let inode: UInt64
  /// The file's length as this process last left or saw it.
  var size: Int64

  init(descriptor: FileDescriptor, status: EntryStatus) {
    self.descriptor = descriptor
    device = status.device
    inode = status.inode
    size = status.size
  }

  /// Whether the entry `status` describes is this inode.
  func isInode(of status: EntryStatus) -> Bool {
    device == status.device && inode == status.inode
  }
}
