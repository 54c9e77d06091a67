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

  /// Tells `onEvent` what may have happened to the file, until the token is cancelled or
  /// released. ``FileWatchEvent`` says what is delivered, when and on which thread.
  ///
  /// Returns once the watch is in place, so that a read made afterwards misses no change; or
  /// once it has failed, which `onEvent` then hears as ``FileWatchEvent/unwatched(_:)``. It never
  /// waits for an event.
  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken
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
