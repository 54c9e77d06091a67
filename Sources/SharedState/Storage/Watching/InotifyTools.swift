import CInotifyTools
import Glibc
import SystemPackage

/// Typed calls into libinotifytools (Debian 3.22.6): the one file that calls its C API.
///
/// The library's state is process-global and unlocked: only the ``InotifyReader`` may call
/// these, which ``DeliveryThreads`` runs on one thread at a time (handing it from thread to
/// thread under its lock, between two turns of the reader). Each call documents the C function it makes; the system
/// calls around them go through `Storage/System`.
enum InotifyTools {
  /// Starts the library: opens its inotify descriptor, and returns it.
  ///
  /// The descriptor is kept below ``LowDescriptorSlot/selectLimit``, because the library waits on
  /// it with `select()`: the slot reserved when SharedState was loaded is handed to it. The
  /// descriptor is marked close-on-exec, so that child processes do not inherit it.
  ///
  /// The corresponding C function is `inotifytools_initialize()`.
  ///
  /// - Throws: ``InotifyStartFailure`` naming the system's error (`EMFILE` when the user's
  ///   `fs.inotify.max_user_instances` is reached), or a descriptor too large for `select()`.
  static func initialize() throws(InotifyStartFailure) -> FileDescriptor {
    let before = OpenDescriptors.inotifyInstances()
    LowDescriptorSlot.release()
    let started = inotifytools_initialize() != 0
    let error = inotifytools_error()
    // Reserve again at once: the slot the old descriptor left, or the one just released.
    LowDescriptorSlot.reserve()
    guard started else {
      throw .system(error == 0 ? .tooManyOpenFiles : Errno(rawValue: error))
    }
    // The library does not tell its descriptor: it is the inotify descriptor that is new.
    let new = OpenDescriptors.inotifyInstances().subtracting(before)
    guard new.count == 1, let descriptor = new.first else {
      inotifytools_cleanup()
      throw .unidentified
    }
    // Not fatal when it fails: a child that inherits the descriptor only keeps the instance
    // open longer.
    try? descriptor.setCloseOnExec()
    if descriptor.rawValue >= LowDescriptorSlot.selectLimit {
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

  /// Waits for the next event, however long it takes, and copies it.
  ///
  /// One event at a time: asking the library for more busy-waits.
  ///
  /// The library returns each event where its buffer holds it: the events of one read from the
  /// kernel one after the other, and the first event of a read at the buffer's start. So an event
  /// kept at or before the one returned last begins a read (``InotifyEvent/beginsRead``). Should
  /// a library keep every event at one place, each would count as beginning a read: nothing is
  /// ever taken for older than it is.
  ///
  /// A companion file's half of a move is passed over here, not returned: half of a write's
  /// events are its scratch file's, moved by the exchange whose other half, already read, follows
  /// in the same call (``InotifyEvent/isFollowedInItsCall``), and no registration follows a
  /// companion file. The event returned then begins a read when one it passed over did.
  ///
  /// The corresponding C function is `inotifytools_next_event(0)`.
  ///
  /// - Parameters:
  ///   - lastPlace: Where the library kept the event returned last (0 before the first, and
  ///     after the library restarts); updated.
  ///   - lastName: The name of the last event that named a file; an event with the same name
  ///     reuses it rather than making a new `String` (most events name the file the last one
  ///     named), and one with another name replaces it.
  /// - Returns: The event, or the system's error when reading failed.
  static func nextEvent(lastPlace: inout UInt, lastName: inout String) -> Result<InotifyEvent, Errno> {
    var beginsRead = false
    while true {
      var next = inotifytools_next_event(0)
      // As every system call of the storage layer: an interrupted wait is begun again, not taken
      // for a broken read (the reading threads block signals, see DeliveryThreads).
      while next == nil, inotifytools_error() == Errno.interrupted.rawValue {
        next = inotifytools_next_event(0)
      }
      guard let event = next else {
        lastPlace = 0
        let error = inotifytools_error()
        return .failure(error == 0 ? .ioError : Errno(rawValue: error))
      }
      let place = UInt(bitPattern: event)
      if place <= lastPlace || lastPlace == 0 { beginsRead = true }
      lastPlace = place
      let events = InotifyEvents(rawValue: event.pointee.mask)
      let descriptor = WatchDescriptor(rawValue: event.pointee.wd)
      guard let name = shared_state_event_name(event) else {
        return .success(InotifyEvent(descriptor: descriptor, events: events, name: "", beginsRead: beginsRead))
      }
      let length = strlen(name)
      // Half of a write's events name its scratch file: they are dropped without a copy.
      let isAboutCompanionFile =
        !events.contains(.isDirectory) && CompanionPaths.isCompanion(systemName: name, length: length)
      if isAboutCompanionFile, !events.isDisjoint(with: [.movedFrom, .movedTo]) { continue }
      return .success(
        InotifyEvent(
          descriptor: descriptor,
          events: events,
          name: isAboutCompanionFile ? "" : reusing(&lastName, for: name, length: length),
          isAboutCompanionFile: isAboutCompanionFile,
          beginsRead: beginsRead
        )
      )
    }
  }

  /// `name`, `length` bytes long, as a `String`: `last` when it holds the same bytes, otherwise a
  /// new one, kept in `last`.
  private static func reusing(_ last: inout String, for name: UnsafePointer<CChar>, length: Int) -> String {
    // The watched item's own events carry no name.
    if length == 0 { return "" }
    let isSame = last.utf8.count == length
      && last.utf8.withContiguousStorageIfAvailable { memcmp($0.baseAddress!, name, length) == 0 } == true
    if !isSame { last = String(cString: name) }
    return last
  }
}
