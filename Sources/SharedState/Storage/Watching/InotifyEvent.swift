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
  /// registration follows: its close after writing or its removal (its moves are passed over
  /// before they become events, see ``InotifyTools/nextEvent(lastPlace:lastName:)``). Its name
  /// is not copied.
  var isAboutCompanionFile = false
  /// Whether the library read it, or an event passed over before it, from the kernel in the call
  /// that returned it (the first event of a read), rather than from what an earlier read left in
  /// its buffer. Every event of one read was queued before the first of them was returned.
  var beginsRead = true

  /// Whether the system call that queued it queued another event right after it, so that the
  /// next event is, but for a rare race with the reading thread, already read: the first half of
  /// a move (a `MOVED_FROM`, whose `MOVED_TO` follows when the entry stays in the directory).
  ///
  /// A guess that only steers the reading pace (see ``InotifyReader``): wrong, it costs one
  /// wake-up left out of the pace, never an event.
  var isFollowedInItsCall: Bool {
    events.contains(.movedFrom)
  }
}
