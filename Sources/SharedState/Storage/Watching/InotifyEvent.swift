/// One inotify event, copied out of libinotifytools' buffer (which the next read overwrites).
struct InotifyEvent: Sendable, Equatable {
  /// The watch that saw it.
  let descriptor: WatchDescriptor
  /// What happened.
  let events: InotifyEvents
  /// The entry of the watched directory it is about; empty for the watched item itself.
  let name: String
}
