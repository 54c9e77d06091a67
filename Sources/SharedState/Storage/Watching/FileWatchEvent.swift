import SystemPackage

/// What the watcher tells the handle of one watched file: the seam between watching
/// (`Storage/Watching`) and the file protocol (`Storage/Files`).
///
/// Events are hints, never counts or contents. The handle decides what an event means: whether
/// the file is still what it last read or wrote (its own write, most of the time), or whether it
/// must take in what another process or program left there.
///
/// ## Delivery contract
///
/// - A handle's events arrive one at a time, never overlapping, and never on a thread while it
///   runs the ``InotifyReader``: a slow handle (a decode, an observer) holds up only itself.
/// - A burst of events for one file may arrive as one: an event not yet delivered absorbs the next
///   (``writtenInPlace`` absorbs ``replaced``, ``resynchronize`` absorbs both). None is lost.
/// - Events about companion files (the lock and scratch files beside a target) and about other
///   names in the directory are not delivered.
enum FileWatchEvent: Sendable, Equatable {
  /// The name was created, renamed in or out, exchanged or removed, by anyone (this process
  /// included): another inode, or none, may be there now.
  case replaced

  /// A file of that name was opened for writing and closed: the same inode may hold other bytes,
  /// possibly of the same size and, within the timestamps' granularity, the same times.
  case writtenInPlace

  /// Changes may have gone unseen (the kernel's queue overflowed, the directory was removed and
  /// created again, the watcher started afresh, watching resumed after ``unwatched(_:)``, or the
  /// watch was placed only after the registration returned, on a busy machine): compare with
  /// what is on disk.
  case resynchronize

  /// The file cannot be watched any more, or could not be watched from the start: others'
  /// changes go unseen until a ``resynchronize`` follows, which the watcher sends when watching
  /// resumes by itself.
  case unwatched(WatchFailure)
}

/// Why a file is not watched.
struct WatchFailure: Error, Sendable, Equatable, CustomStringConvertible {
  /// The system's error, where there is one (`ENOSPC` for the user's inotify watch limit, `EMFILE`
  /// for the instance limit).
  let errno: Errno?
  /// One sentence, without a final period, that says why.
  let reason: String

  var description: String { reason }
}
