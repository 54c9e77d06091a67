/// What a ``DirectoryWatcher`` reports about a watched directory.
enum DirectoryEvent: Equatable, Sendable {
  /// An entry of the directory changed.
  case entryChanged(String, EntryChange)

  /// Anything in the directory may have changed: events were lost (the kernel's queue
  /// overflowed), or the directory itself was removed, replaced or created. Re-read everything.
  case rescan

  /// How an entry changed.
  enum EntryChange: Equatable, Sendable {
    /// A file of that name was opened for writing and closed: written in place.
    case writtenInPlace
    /// The name was renamed in or out, exchanged or removed: a different file, or none, is there.
    case replaced
  }
}
