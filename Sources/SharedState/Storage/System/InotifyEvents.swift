#if canImport(Glibc)
  import Glibc
#endif

/// A set of inotify events: what a watch asks for, and what an event reports (`IN_*` in
/// `<sys/inotify.h>`).
struct InotifyEvents: OptionSet, Hashable, Sendable {
  let rawValue: UInt32

  init(rawValue: UInt32) {
    self.rawValue = rawValue
  }

  private init(_ flag: Int32) {
    rawValue = UInt32(bitPattern: flag)
  }

  // The sets below are computed, not stored: a stored `static let` is initialized lazily, and
  // every use in the reader's path (each event) would go through `swift_once`.

  /// A file was modified (`IN_MODIFY`).
  static var modified: Self { Self(IN_MODIFY) }
  /// A file opened for writing was closed (`IN_CLOSE_WRITE`).
  static var closedAfterWriting: Self { Self(IN_CLOSE_WRITE) }
  /// An entry was renamed out of the directory (`IN_MOVED_FROM`).
  static var movedFrom: Self { Self(IN_MOVED_FROM) }
  /// An entry was renamed into the directory (`IN_MOVED_TO`).
  static var movedTo: Self { Self(IN_MOVED_TO) }
  /// An entry was created in the directory (`IN_CREATE`).
  static var created: Self { Self(IN_CREATE) }
  /// An entry was removed from the directory (`IN_DELETE`).
  static var deleted: Self { Self(IN_DELETE) }
  /// The watched item itself was removed (`IN_DELETE_SELF`).
  static var deletedSelf: Self { Self(IN_DELETE_SELF) }
  /// The watched item itself was moved (`IN_MOVE_SELF`).
  static var movedSelf: Self { Self(IN_MOVE_SELF) }
  /// The file system of the watched item was unmounted (`IN_UNMOUNT`).
  static var unmounted: Self { Self(IN_UNMOUNT) }
  /// The kernel's event queue overflowed: events were lost (`IN_Q_OVERFLOW`).
  static var queueOverflowed: Self { Self(IN_Q_OVERFLOW) }
  /// The watch is gone: removed, or its item deleted (`IN_IGNORED`).
  static var ignored: Self { Self(IN_IGNORED) }
  /// The event's entry is a directory (`IN_ISDIR`).
  static var isDirectory: Self { Self(IN_ISDIR) }
  /// Watch the path only when it is a directory (`IN_ONLYDIR`).
  static var onlyDirectory: Self { Self(IN_ONLYDIR) }

  /// The events that may change what a file name in a directory holds. Not `IN_CREATE`: a file
  /// created empty is written next, and its close or its rename into place is what counts, so
  /// asking for it would wake every watching process once more for each new file (a writer's
  /// scratch file, a default stored for each key a program opens) for nothing. A watch that waits
  /// for a directory to appear asks for it (``entryArrivals``).
  static var entryChanges: Self { Self(IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE) }
  /// The events that tell that a directory's entries appeared or went.
  static var entryArrivals: Self { Self(IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE) }
  /// The events that tell that an entry that exists went or was replaced (renamed over).
  static var entryDepartures: Self { Self(IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE) }
  /// The events that tell that a watch no longer sees its directory at its path.
  static var watchEnded: Self { Self(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED) }
}
