/// Why a file-storage or app-storage key could not read, write or watch its file.
///
/// A file that is read but does not decode is not one of these: the key's state then holds the
/// decoder's own error (a `DecodingError` whose description begins with the file's path, or the
/// error your `decode:` closure threw), as with swift-sharing.
public struct FileStorageError: Error, CustomStringConvertible {
  /// What went wrong.
  public enum Reason: Sendable, Equatable {
    /// The file could not be read.
    case unreadable
    /// The value could not be encoded, or the file could not be written. Also a file written
    /// with ``FileDurability/flushedToDisk`` whose directory could not be flushed to the disk:
    /// the new value is then in place, and the description says so.
    case unwritable
    /// Changes that other processes make to the file cannot be seen for now (inotify's limits
    /// are reached, say): the value is what was last read. Watching is retried by itself; once
    /// it resumes, the value is brought up to date and the error is cleared.
    case unwatched
  }

  /// What went wrong.
  public let reason: Reason
  /// The file's path.
  public let path: String
  /// The error of the encoder or the system.
  public let underlying: any Error

  /// Creates the error.
  public init(_ reason: Reason, path: String, underlying: any Error) {
    self.reason = reason
    self.path = path
    self.underlying = underlying
  }

  /// One sentence, without a final period, that says what happened to which file.
  public var description: String {
    switch reason {
    case .unreadable:
      "\(path) could not be read: \(underlying)"
    case .unwritable where underlying is DirectoryNotFlushed:
      "\(path) was written, but \(underlying)"
    case .unwritable:
      "\(path) could not be written: \(underlying)"
    case .unwatched:
      "changes to \(path) made elsewhere cannot be seen for now: \(underlying)"
    }
  }
}

extension FileStorageError {
  /// The error for a transaction or a read that could not establish what the file holds. A
  /// transaction refused before any reading, because this thread is inside one on the file
  /// already, because the lock file cannot be opened for writing (another user's, or on a
  /// read-only file system), or because a symbolic link another user planted is on the way, is
  /// a write that could not be made, not a file that could not be read.
  static func readFailure(_ error: any Error, path: String) -> FileStorageError {
    if let error = error as? FileStorageError { return error }
    let isWriteRefused =
      error is NestedTransaction || (error as? LockFileUnavailable)?.forWriting == true
      || (error as? RefusedEntry)?.reason == .plantedLink
    return FileStorageError(isWriteRefused ? .unwritable : .unreadable, path: path, underlying: error)
  }
}
