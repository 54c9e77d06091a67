/// What `stat` says about a file that changes whenever the file is replaced or rewritten: enough
/// to notice a write by a program that does not take part in the locking, within the limits of
/// the file system's timestamp granularity.
struct FileIdentity: Equatable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modificationSeconds: Int64
  var modificationNanoseconds: Int64
  var changeSeconds: Int64
  var changeNanoseconds: Int64

  init(
    device: UInt64, inode: UInt64, size: Int64, modificationSeconds: Int64,
    modificationNanoseconds: Int64, changeSeconds: Int64, changeNanoseconds: Int64
  ) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modificationSeconds = modificationSeconds
    self.modificationNanoseconds = modificationNanoseconds
    self.changeSeconds = changeSeconds
    self.changeNanoseconds = changeNanoseconds
  }
}
