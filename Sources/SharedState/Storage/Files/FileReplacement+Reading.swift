import Foundation
import SystemPackage

extension FileReplacement {
  /// Reads the target whose entry is `status`, if it is at most `limit` bytes long. Call
  /// holding a cross-process lock.
  ///
  /// - Throws: ``FileTooLarge`` for a longer file, before anything is read or allocated.
  func readTarget(_ status: EntryStatus?, limit: Int) throws -> FileState {
    guard let status else { return .missing }
    if let kept = keptDescriptor(on: status) {
      // `status` is this inode's, from `fstatat`: as good as an `fstat`.
      return .contents(try Self.readWhole(kept, size: status.size, limit: limit))
    }
    // Opened for writing when this process may write it (it becomes the next scratch file), so
    // that the descriptor serves its writes too. Not tried again on a file like one this process
    // was just refused (see `unwritableTarget`).
    let names = lock.entries
    let opened: (descriptor: FileDescriptor, status: EntryStatus)
    var isWritable = keepsDescriptors && !(unwritableTarget?.refuses(status) ?? false)
    do {
      opened = try RegularFile.open(names.target, in: names, reportingAs: paths.target, writable: isWritable)
    } catch let error as Errno where error == .noSuchFileOrDirectory {
      return .missing
    } catch let error as Errno where isWritable && (error == .permissionDenied || error == .readOnlyFileSystem) {
      unwritableTarget = UnwritableTarget(status)
      isWritable = false
      opened = try RegularFile.open(names.target, in: names, reportingAs: paths.target, writable: false)
    }
    let data: Data
    do {
      data = try Self.readWhole(opened.descriptor, size: opened.status.size, limit: limit)
    } catch {
      opened.descriptor.closeIgnoringFailure()
      throw error
    }
    // A file linked elsewhere too is never kept for writing (a write would reach the other name).
    guard keepsDescriptors, !isWritable || opened.status.linkCount == 1 else {
      opened.descriptor.closeIgnoringFailure()
      return .contents(data)
    }
    // The inode kept as the target is most often at the scratch name now, moved there by the
    // exchange of the write being read, and back at the target name after the next: kept as the
    // scratch, so that a reader of changes made elsewhere reads every one without an `open`.
    // (Closed while at the target name, a descriptor opened for writing would tell every
    // watcher `IN_CLOSE_WRITE` there, a write in place; the target name holds the inode just
    // opened, not the one let go here.)
    atScratch?.descriptor.closeIgnoringFailure()
    atScratch = atTarget
    atTarget = OpenInode(descriptor: opened.descriptor, status: opened.status, isWritable: isWritable)
    return .contents(data)
  }

  /// The descriptor this process keeps on the inode `status` describes (at the target name),
  /// when it keeps one. One kept as the scratch there now was brought to the target name by
  /// another process's exchange: the two swap roles, as after this process's own write.
  private func keptDescriptor(on status: EntryStatus) -> FileDescriptor? {
    if let atTarget, atTarget.isInode(of: status) { return atTarget.descriptor }
    guard let atScratch, atScratch.isInode(of: status) else { return nil }
    self.atScratch = atTarget
    atTarget = atScratch.updated(to: status)
    return atScratch.descriptor
  }

  /// Reads the whole file, whose `fstat` said `size`, when it is at most `limit` bytes.
  static func readWhole(_ descriptor: FileDescriptor, size: Int64, limit: Int) throws -> Data {
    // Before allocating: a sparse file of terabytes costs its writer nothing.
    guard size <= Int64(limit) else { throw FileTooLarge(size: size, limit: limit) }
    // One byte more than `stat` says: a read that stops short of the buffer once it has what
    // `stat` said reached the end, with no second call to find nothing there (on a local file
    // system a read of a regular file stops short only at the end; a shorter one is read on). A
    // file that grew meanwhile fills the buffer, and is read on up to the limit; one that
    // shrank ends with a read of nothing.
    var data = ReadBuffer.zeroed(count: Int(max(size, 0)) + 1)
    var length = 0
    while true {
      let count = try data.withUnsafeMutableBytes { buffer throws(Errno) -> Int in
        try descriptor.readOnce(at: Int64(length), into: UnsafeMutableRawBufferPointer(rebasing: buffer[length...]))
      }
      length += count
      if count == 0 { break }
      if length < data.count {
        if Int64(length) >= size { break }
        continue
      }
      guard length <= limit else {
        let grown = (try? descriptor.status()).map { $0.size } ?? Int64(length)
        throw FileTooLarge(size: max(grown, Int64(length)), limit: limit)
      }
      data.count = min(data.count * 2, limit + 1)
    }
    data.count = length
    return data
  }
}
