import Foundation

/// One user's handle on a stored file: it remembers what it last read or wrote, so that it can
/// tell changes made by anyone else (another process, another handle) from its own.
///
/// The key layer holds one per live reference. ``CoordinatedFile`` is the disk's; the in-memory
/// file system for tests and previews has its own.
protocol StoredFile: AnyObject, Sendable {
  /// The file's absolute path.
  var path: String { get }

  /// Reads the file and remembers what it read.
  func read() throws -> FileState

  /// Reads the file, and returns what it holds when that differs from what this handle last read
  /// or wrote (`nil` otherwise).
  func readIfChanged() throws -> FileState?

  /// Runs `body` with exclusive access to the file: no other thread or process that uses this
  /// library reads or writes it meanwhile.
  ///
  /// `body` learns what changed since this handle last read or wrote the file, and can write.
  func withExclusiveAccess<R>(_ body: (ExclusiveFileAccess) throws -> R) rethrows -> R

  /// Calls `onChange`, on some thread, whenever the file may have changed, until the
  /// subscription is cancelled.
  ///
  /// - Throws: When changes cannot be watched: the file's users then see only their own.
  func watch(_ onChange: @escaping @Sendable () -> Void) throws -> SharedSubscription
}

/// What ``StoredFile/withExclusiveAccess(_:)`` hands its body.
struct ExclusiveFileAccess {
  /// What the file holds, when it changed since the handle last read or wrote it; the error when
  /// it could not be read; `nil` when it did not change.
  let change: Result<FileState, any Error>?

  /// Replaces the file's contents atomically.
  let write: (Data) throws -> Void

  /// Removes the file, so that it reads as missing.
  let remove: () throws -> Void
}
