import Foundation
import SystemPackage

extension FileReplacement {
  /// Reads the target whose entry is `status`, if it is at most `limit` bytes long. Call
  /// holding a cross-process lock.
  ///
  /// - Throws: ``FileTooLarge`` for a longer file, before anything is read or allocated.
  func readTarget(_ status: EntryStatus?, limit: Int) throws -> FileState {
    guard let status else { return .missing }
    if let atTarget, atTarget.isInode(of: status) {
      // `status` is this inode's, from `fstatat`: as good as an `fstat`.
      return .contents(try Self.readWhole(atTarget.descriptor, size: status.size, limit: limit))
    }
    // Opened for writing only when it is kept (it becomes the next scratch file): closing a file
    // opened for writing tells every watcher IN_CLOSE_WRITE, a write in place. Not tried again
    // on a file like one this process was just refused (see `unwritableTarget`).
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
    if isWritable, opened.status.linkCount == 1 {
      atTarget?.descriptor.closeIgnoringFailure()
      atTarget = OpenInode(descriptor: opened.descriptor, status: opened.status)
    } else {
      opened.descriptor.closeIgnoringFailure()
    }
    return .contents(data)
  }

  /// Reads the whole file, whose `fstat` said `size`, when it is at most `limit` bytes.
  static func readWhole(_ descriptor: FileDescriptor, size: Int64, limit: Int) throws -> Data {
    // Before allocating: a sparse file of terabytes costs its writer nothing.
    guard size <= Int64(limit) else { throw FileTooLarge(size: size, limit: limit) }
    // One byte more than `stat` says: a read that does not fill the buffer reached the end. A
    // file that grew meanwhile is read on, up to the limit.
    var data = ReadBuffer.zeroed(count: Int(max(size, 0)) + 1)
    var length = 0
    while true {
      let count = try data.withUnsafeMutableBytes { buffer throws -> Int in
        try descriptor.read(at: Int64(length), into: UnsafeMutableRawBufferPointer(rebasing: buffer[length...]))
      }
      length += count
      if length < data.count { break }
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
