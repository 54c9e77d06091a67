import CInotifyTools
import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Typed calls into libinotifytools (Debian 3.22.6).
///
/// The library's state is process-global and unlocked: only the thread that reads events
/// (``WatchOwner``, run by one thread of ``DeliveryThreads`` at a time, the lead passing under
/// that pool's lock) may call these. Each call documents the C function it makes.
enum InotifyTools {
  /// Starts the library: opens its inotify descriptor, and returns it.
  ///
  /// The descriptor is kept below 1024, because the library waits on it with `select()`, whose
  /// descriptor set ends there (a larger one would be written past its end): the slot reserved
  /// when SharedState was loaded is handed to it. The descriptor is marked close-on-exec, so
  /// that child processes do not inherit it.
  ///
  /// The corresponding C function is `inotifytools_initialize()`.
  ///
  /// - Throws: ``InotifyDescriptor/Failure`` naming the system's error (`EMFILE` when the user's
  ///   `fs.inotify.max_user_instances` is reached), or a descriptor too large for `select()`.
  static func initialize() throws(InotifyDescriptor.Failure) -> Int32 {
    let before = InotifyDescriptor.all()
    _ = shared_state_release_low_descriptor()
    let started = inotifytools_initialize() != 0
    let error = inotifytools_error()
    // Reserve again at once: the slot the old descriptor left, or the one just released.
    _ = shared_state_reserve_low_descriptor()
    guard started else {
      throw .system(Errno(rawValue: error == 0 ? EMFILE : error))
    }
    // The library does not tell its descriptor: it is the inotify descriptor that is new.
    let new = InotifyDescriptor.all().subtracting(before)
    guard new.count == 1, let descriptor = new.first else {
      inotifytools_cleanup()
      throw .unidentified
    }
    _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    if descriptor >= FD_SETSIZE {
      inotifytools_cleanup()
      throw .descriptorTooLarge(descriptor)
    }
    return descriptor
  }

  /// Closes the library's descriptor and forgets every watch.
  ///
  /// The corresponding C function is `inotifytools_cleanup()`.
  static func cleanup() {
    inotifytools_cleanup()
  }

  /// Watches `path` for `events` on the library's inotify `descriptor`, and returns the watch's
  /// descriptor (the same one again for a path already watched: its events are replaced).
  ///
  /// Watches are added to the library's descriptor directly rather than through
  /// `inotifytools_watch_file()`: the library files watches by path and keeps the entry of a
  /// watch the kernel dropped, so that watching a removed and recreated directory again would
  /// answer with the dead watch's descriptor. Only the library's reading uses its tables, and it
  /// does not need them.
  ///
  /// The corresponding C function is `inotify_add_watch(2)`.
  static func watch(_ path: FilePath, for events: InotifyEvents, on descriptor: Int32) throws(Errno) -> WatchDescriptor {
    let watch = path.withPlatformString { inotify_add_watch(descriptor, $0, events.rawValue) }
    guard watch >= 0 else { throw Errno(rawValue: errno) }
    return WatchDescriptor(rawValue: watch)
  }

  /// Removes a watch from the library's inotify `descriptor`; a watch the kernel already dropped
  /// (its directory removed) is no error.
  ///
  /// The corresponding C function is `inotify_rm_watch(2)`.
  static func removeWatch(_ watch: WatchDescriptor, on descriptor: Int32) {
    _ = inotify_rm_watch(descriptor, watch.rawValue)
  }

  /// Waits for the next event, however long it takes, and copies it.
  ///
  /// One event at a time: asking the library for more busy-waits.
  ///
  /// The corresponding C function is `inotifytools_next_event(0)`.
  ///
  /// - Returns: The event, or the system's error when reading failed.
  static func nextEvent() -> Result<InotifyEvent, Errno> {
    var next = inotifytools_next_event(0)
    // As every system call of the storage layer: an interrupted wait is begun again, not taken
    // for a broken read (the reading threads block signals, see DeliveryThreads).
    while next == nil, inotifytools_error() == EINTR {
      next = inotifytools_next_event(0)
    }
    guard let event = next else {
      let error = inotifytools_error()
      return .failure(Errno(rawValue: error == 0 ? EIO : error))
    }
    return .success(
      InotifyEvent(
        descriptor: WatchDescriptor(rawValue: event.pointee.wd),
        events: InotifyEvents(rawValue: event.pointee.mask),
        name: String(cString: shared_state_event_name(event))
      )
    )
  }
}
