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
  /// Whether the library read it from the kernel in the call that returned it (the first event
  /// of a read), rather than from what an earlier read left in its buffer. Every event of one
  /// read was queued before the first of them was returned.
  var beginsRead = true
}
