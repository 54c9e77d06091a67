import CInotifyTools
import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Typed calls into libinotifytools (Debian 3.22.6).
///
/// The library's state is process-global and unlocked: only the watcher's owner thread
/// (``WatchOwner``) may call these. Each call documents the C function it makes.
enum InotifyTools {
  /// Starts the library: opens its inotify descriptor.
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
  /// - Returns: The library's descriptor, when it could be told apart.
  @discardableResult
  static func initialize() throws(InotifyDescriptor.Failure) -> Int32? {
    let before = InotifyDescriptor.all()
    _ = shared_state_release_low_descriptor()
    let started = inotifytools_initialize() != 0
    let error = inotifytools_error()
    // Reserve again at once: the slot the old descriptor left, or the one just released.
    _ = shared_state_reserve_low_descriptor()
    guard started else {
      throw .system(Errno(rawValue: error == 0 ? EMFILE : error))
    }
    guard let descriptor = InotifyDescriptor.all().subtracting(before).min() else { return nil }
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

  /// Watches a directory, or a file, for `events`, and returns the new watch's descriptor.
  ///
  /// The library files a directory under its path with a trailing `/`, which is how the
  /// descriptor is found again. A path it already lists (a watch the kernel dropped) keeps the
  /// old entry: the caller must start the library afresh before watching such a path again.
  ///
  /// The corresponding C functions are `inotifytools_watch_file()` and
  /// `inotifytools_wd_from_filename()`.
  static func watch(_ path: FilePath, for events: InotifyEvents, isDirectory: Bool) throws(Errno) -> WatchDescriptor {
    guard inotifytools_watch_file(path.string, Int32(bitPattern: events.rawValue)) != 0 else {
      let error = inotifytools_error()
      throw Errno(rawValue: error == 0 ? EINVAL : error)
    }
    let descriptor = inotifytools_wd_from_filename(isDirectory ? path.string + "/" : path.string)
    guard descriptor >= 0 else { throw Errno.noSuchFileOrDirectory }
    return WatchDescriptor(rawValue: descriptor)
  }

  /// Removes a watch that the kernel still holds. (A watch the kernel dropped cannot be
  /// removed: the library prints an error on standard error and keeps its entry; ask
  /// ``InotifyDescriptor/liveWatches(of:)`` first.)
  ///
  /// The corresponding C function is `inotifytools_remove_watch_by_wd()`.
  ///
  /// - Returns: Whether the watch was removed.
  static func removeWatch(_ descriptor: WatchDescriptor) -> Bool {
    inotifytools_remove_watch_by_wd(descriptor.rawValue) != 0
  }

  /// Waits for the next event, however long it takes, and copies it.
  ///
  /// One event at a time: asking the library for more busy-waits.
  ///
  /// The corresponding C function is `inotifytools_next_event(0)`.
  ///
  /// - Returns: The event, or the system's error when reading failed.
  static func nextEvent() -> Result<InotifyEvent, Errno> {
    guard let event = inotifytools_next_event(0) else {
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
