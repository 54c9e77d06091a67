/// One inotify event, copied out of libinotifytools' buffer (which the next read overwrites).
struct InotifyEvent: Sendable, Equatable {
  /// The watch that saw it.
  let descriptor: WatchDescriptor
  /// What happened.
  let events: InotifyEvents
  /// The entry of the watched directory it is about; empty for the watched item itself, and
  /// for a companion file (see ``isAboutCompanionFile``).
  let name: String
  /// Whether it is about a companion file (a lock or scratch file, not a directory), which no
  /// registration follows: half of a write's events. Its name is not copied.
  var isAboutCompanionFile = false
}
