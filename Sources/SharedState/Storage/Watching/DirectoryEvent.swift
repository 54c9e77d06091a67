/// What a ``DirectoryWatcher`` reports about a watched directory.
enum DirectoryEvent: Equatable, Sendable {
  /// An entry of the directory was written and closed, renamed in or out, or removed.
  case entryChanged(String)

  /// Anything in the directory may have changed: events were lost (the kernel's queue
  /// overflowed), or the directory itself was removed, replaced or created. Re-read everything.
  case rescan
}
