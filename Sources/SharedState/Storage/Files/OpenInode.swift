import SystemPackage

/// A descriptor this process keeps open on one of the two inodes that alternate between a
/// stored file's target name and its scratch name, with the inode it is on.
struct OpenInode {
  let descriptor: FileDescriptor
  let device: UInt64
  let inode: UInt64
  /// The file's length as this process last left or saw it.
  var size: Int64
  /// Whether the descriptor was opened for writing: only such a one is ever written as the
  /// scratch. One opened for reading (another user's file) is only read.
  let isWritable: Bool

  init(descriptor: FileDescriptor, status: EntryStatus, isWritable: Bool = true) {
    self.descriptor = descriptor
    device = status.device
    inode = status.inode
    size = status.size
    self.isWritable = isWritable
  }

  /// The same descriptor, with the size `status` (this inode's, looked up again) gives.
  func updated(to status: EntryStatus) -> OpenInode {
    OpenInode(descriptor: descriptor, status: status, isWritable: isWritable)
  }

  /// Whether the entry `status` describes is this inode.
  func isInode(of status: EntryStatus) -> Bool {
    device == status.device && inode == status.inode
  }
}
