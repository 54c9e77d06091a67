import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// The directory of a write made with ``FileDurability/flushedToDisk``: opened before the write
/// is announced, flushed (`fsync`) after it is published.
///
/// Opened first, so that a directory this process may write in but not open (mode `-wx`) fails
/// the write before anything is replaced. Flushed last, once the page describes the write: the
/// new file is at the target name by then, and every process reads it, so a watcher that wakes
/// for the exchange finds the write finished instead of waiting for the disk.
struct DirectoryFlush {
  private let descriptor: FileDescriptor
  private let path: FilePath

  /// - Throws: ``DirectoryNotOpened``.
  init(opening path: FilePath, in names: EntryNames) throws(DirectoryNotOpened) {
    do {
      if names.directory == AT_FDCWD {
        descriptor = try FileDescriptor.openDirectory(path)
      } else {
        // The directory the names are looked up in (see ``EntryNames``), opened for `fsync`.
        descriptor = FileDescriptor(
          rawValue: try systemCall { openat(names.directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        )
      }
    } catch {
      throw DirectoryNotOpened(directory: path, underlying: error)
    }
    self.path = path
  }

  /// Flushes the directory's entries to the disk and closes it.
  ///
  /// - Throws: ``DirectoryNotFlushed``.
  func flush() throws(DirectoryNotFlushed) {
    do {
      try descriptor.synchronize()
    } catch {
      descriptor.closeIgnoringFailure()
      throw DirectoryNotFlushed(directory: path, underlying: error)
    }
    do {
      try descriptor.closeReportingFailure()
    } catch {
      throw DirectoryNotFlushed(directory: path, underlying: error)
    }
  }

  /// Closes the directory unflushed: the write did not happen.
  func close() {
    descriptor.closeIgnoringFailure()
  }
}

/// The error for a durable write in a directory this process cannot open to flush: nothing was
/// written.
struct DirectoryNotOpened: Error, CustomStringConvertible {
  let directory: FilePath
  let underlying: Errno

  var description: String {
    "its directory \(directory) cannot be opened to flush the write to the disk: \(underlying)"
  }
}

/// The error for a durable write whose file replaced the old one but whose directory could not
/// be flushed to the disk: every process reads the new value, and a power loss may undo it.
struct DirectoryNotFlushed: Error, CustomStringConvertible {
  let directory: FilePath
  let underlying: Errno

  var description: String {
    "its directory \(directory) could not be flushed to the disk, so a power loss may undo the write: \(underlying)"
  }
}
