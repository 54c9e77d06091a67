import Foundation

/// One user's handle on a stored file: it remembers what it last read or wrote, so that it can
/// tell changes made by anyone else (another process, another handle) from its own.
///
/// The key layer holds one per live reference. ``DiskFile`` is the disk's; the in-memory file
/// system for tests and previews has its own.
protocol StoredFile: AnyObject, Sendable {
  /// The file's absolute path.
  var path: String { get }

  /// Reads the file and remembers what it read.
  func read() throws -> FileState

  /// Reads the file as `occasion` allows (``LookOccasion/delivery``, ``LookOccasion/catchUp`` or
  /// ``LookOccasion/load``), without making what it found this handle's knowledge: the caller
  /// takes it in with ``takeIn(_:)``, under its own lock, together with the value it gives.
  /// Nothing found, on a delivery or a catch-up, is told by one look, without reading and
  /// without any lock.
  ///
  /// A catch-up (no event prompted it: right after watching began, or after events were lost) is
  /// as cheap as it can be, and it maps nothing: it may run for every open file at once, and a
  /// program may open thousands.
  func reading(on occasion: LookOccasion) -> FileReading

  /// Makes what `reading` found this handle's knowledge, if the handle still knows what it knew
  /// when the read began; otherwise (a write or another read of this handle came between)
  /// leaves it, and returns `false`: the caller reads again.
  func takeIn(_ reading: FileReading) -> Bool

  /// Whether the delivery of a change made elsewhere (an event's, or a catch-up's) is left to a
  /// transaction of this handle's under way, which takes it in; the handle makes it later itself
  /// if that transaction ends without writing (see ``DiskFile/deferToTransaction()``).
  func deferToTransaction() -> Bool

  /// A write of this process's that goes through another handle (the suite's API) begins: until
  /// ``localWriteEnds()``, ``deferToTransaction()`` defers every delivery, as for a transaction
  /// of this handle's.
  func localWriteBegins()

  /// The write that ``localWriteBegins()`` announced is over, and its writer has delivered what
  /// it wrote: a delivery deferred meanwhile is made now, on the watcher's threads.
  func localWriteEnds()

  /// Begins a transaction: no other thread or process that uses this library writes the file
  /// until it ends, and the transaction says what changed since this handle last read or wrote.
  ///
  /// The caller ends it with ``FileTransaction/end()``, on the same thread, whether or not it
  /// committed. Never call it again on a thread that is inside a transaction on the same file.
  func beginTransaction() -> any FileTransaction

  /// Writes `contents` if, and only if, the file still holds `expected` once the lock is held,
  /// in one transaction of its own (the same protocol as every write: watchers see it, and this
  /// handle knows it as its own); a file that holds anything else is left as it is.
  ///
  /// With `expected` `.missing` the file is only created, never replaced: a file that a
  /// program not taking the lock puts there meanwhile stands, and is what this returns. Where
  /// no process has taken the path's lock yet (there is no lock file), the file is created
  /// without it and no lock file is made (see `UnlockedCreation`).
  ///
  /// - Returns: What the file holds afterwards: `contents` when this call wrote it, what
  ///   someone else wrote otherwise.
  /// - Throws: Why the transaction could not begin or the file could not be read or written.
  func write(_ contents: FileContents, ifStillHolding expected: FileState) throws -> FileState

  /// Tells `onEvent` what may have happened to the file, until the token is cancelled or
  /// released. ``FileWatchEvent`` says what is delivered, when and on which thread.
  ///
  /// Returns once the watch is in place, so that a read made afterwards misses no change; or
  /// once it has failed, which `onEvent` then hears as ``FileWatchEvent/unwatched(_:)``; or after
  /// a short bounded wait for the watcher, in which case `onEvent` hears
  /// ``FileWatchEvent/resynchronize`` once the watch is in place. It never waits for an event.
  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken
}

extension StoredFile {
  /// Reads the file, and returns what it holds when that differs from what this handle last read
  /// or wrote (`nil` otherwise), taking it in at once: for a caller that has no lock of its own
  /// to take it in under.
  func readIfChanged(on occasion: LookOccasion = .delivery) throws -> FileState? {
    // Another read or write of this handle may come between: read again, a few times at most
    // (what is returned then is still what the file held; the handle learns it next time).
    var reading = self.reading(on: occasion)
    for _ in 0..<8 {
      if reading.isNothingNew || takeIn(reading) { break }
      reading = self.reading(on: occasion)
    }
    return try reading.found.get()
  }

  /// Creates the file with `contents` if, and only if, no file is at its path: see
  /// ``write(_:ifStillHolding:)``.
  func createIfMissing(_ contents: FileContents) throws -> FileState {
    try write(contents, ifStillHolding: .missing)
  }
}
