import Foundation
import Synchronization
import SystemPackage

/// Watches files for changes made by anyone, with inotify through libinotifytools: one watch
/// per directory however many files of it are watched, and each event routed by (directory,
/// name) to the registrations that care, in constant time.
///
/// ## Parts
///
/// - ``DirectoryWatcher`` (this type): the registrations, shared between the threads that
///   register and the reading thread, and the one lock that guards them.
/// - ``InotifyReader``: reads inotify's events, the one caller of libinotifytools (its state is
///   process-global and unlocked): it applies a ``WatchPlan``, waits for events and routes them
///   here. ``DeliveryThreads`` runs it on one thread at a time, the reading thread.
/// - ``InotifyTools``: typed calls into libinotifytools.
/// - ``FileWatchRegistration``: one handle's events, coalesced and delivered serially: by the
///   reading thread once it has read them (another thread takes over reading when a delivery
///   lasts), or by a thread of ``DeliveryThreads``' pool.
///
/// ## Locks
///
/// Locks are only ever taken in this order, never the other way round:
///
/// 1. `DirectoryWatcher.lock` (registrations, directory states, the wake-up file);
/// 2. a `FileWatchRegistration`'s mutex (its pending event);
/// 3. `DeliveryThreads.lock` (the deliveries waiting for a thread), taken after 2 is
///    released.
///
/// Deliveries are scheduled after `DirectoryWatcher.lock` is released, too: scheduling may start
/// a thread, and registrations wait on that lock. (Starting the reader, once, takes 3 inside 1,
/// as do telling the delivery threads how many files are watched and that the reader is woken:
/// those start no thread.)
///
/// No lock is held while libinotifytools waits for an event, nor while a handle's `onEvent`
/// runs; the reader's own state has no lock: only the reading thread touches it.
///
/// ## Never parked, never silent
///
/// A directory that cannot be watched (inotify's limits, a descriptor that `select()` cannot
/// take) is reported to each of its registrations as ``FileWatchEvent/unwatched(_:)``, retried
/// with a growing pause, and followed by ``FileWatchEvent/resynchronize`` once watched again.
/// Registering waits for the reader only for a directory that is not watched yet, and at most
/// ``registrationWait``; a registration that returned before its watch was in place hears
/// ``FileWatchEvent/resynchronize`` once it is (so that nothing written in between is missed),
/// or ``FileWatchEvent/unwatched(_:)`` if the reader has not answered within
/// ``registrationTimeout``.
///
/// `@unchecked Sendable`: every mutable property is only touched with `lock` held.
final class DirectoryWatcher: @unchecked Sendable {
  /// The watcher every key uses.
  static let shared = DirectoryWatcher()

  /// The longest a registration waits for the reader (``InotifyReader``) to watch a new
  /// directory (it answers within microseconds on a quiet machine). Past it, the registration
  /// returns, and hears ``FileWatchEvent/resynchronize`` once the watch is in place: the threads
  /// that register are often the few of Swift's cooperative pool, which must not stay blocked.
  let registrationWait: Duration

  /// How long the reader may take to watch a new directory before its registrations hear
  /// ``FileWatchEvent/unwatched(_:)`` (and, later, ``FileWatchEvent/resynchronize``).
  let registrationTimeout: Duration

  /// What a registration knows of its directory's watch.
  enum DirectoryState: Equatable {
    /// The reader has not looked at it yet.
    case pending
    /// Watched (or, for a directory that does not exist, waited for through an ancestor).
    case watched
    /// Not watched, and retried.
    case failed(WatchFailure)
  }

  /// The registrations of one directory.
  ///
  /// `@unchecked Sendable`: its mutable properties are only touched with the watcher's `lock`
  /// held (a check scheduled for later takes the lock too).
  private final class Directory: @unchecked Sendable {
    let path: FilePath
    // Unchecked exclusivity: see `directories`.
    @exclusivity(unchecked) var files: [String: Registrations] = [:]
    var count = 0
    var state = DirectoryState.pending
    /// Whether its registrations heard ``FileWatchEvent/unwatched(_:)`` and must hear
    /// ``FileWatchEvent/resynchronize`` when it is watched.
    var owesResynchronize = false
    /// Whether a check that the reader answered within ``registrationTimeout`` is scheduled.
    var isTimeoutScheduled = false

    init(path: FilePath) {
      self.path = path
    }
  }

  /// The registrations of one name: almost always one (one reference per key), which needs no
  /// array of its own.
  fileprivate enum Registrations: Sequence {
    case one(FileWatchRegistration)
    case many(ContiguousArray<FileWatchRegistration>)

    struct Iterator: IteratorProtocol {
      var single: FileWatchRegistration?
      var many: ContiguousArray<FileWatchRegistration>.Iterator?

      mutating func next() -> FileWatchRegistration? {
        if let single {
          self.single = nil
          return single
        }
        return many?.next()
      }
    }

    func makeIterator() -> Iterator {
      switch self {
      case let .one(registration): Iterator(single: registration)
      case let .many(registrations): Iterator(many: registrations.makeIterator())
      }
    }

    func adding(_ registration: FileWatchRegistration) -> Self {
      .many(ContiguousArray(self) + [registration])
    }

    /// What is left once `registration` is removed; `nil` when nothing is.
    func removing(_ registration: FileWatchRegistration) -> Self? {
      let rest = filter { $0 !== registration }
      if rest.count > 1 { return .many(ContiguousArray(rest)) }
      return rest.first.map(Self.one)
    }
  }

  /// `wantedRevision`, for the reader's question before every read (``isWanted(changedSince:)``)
  /// without the lock: taking it there cost a miss on the condition's object on every change.
  private let wantedRevisionSeen = Atomic<Int>(0)

  // MARK: Guarded by `lock`

  /// An `NSCondition`, not Synchronization's `Mutex`: a registration waits on it, with a
  /// deadline, for the reader to watch its directory, and the reader for the wanted directories
  /// to change; `Mutex` has no condition to wait on.
  private let lock = NSCondition()
  // Unchecked exclusivity, as `files` of each entry: both are only touched with `lock` held, and
  // no access overlaps another (none is held across a call). Checked, each access of the route
  // of an event (every change) cost a look-up of the thread's access set.
  @exclusivity(unchecked) private var directories: [PathKey: Directory] = [:]
  /// The registrations of every directory: how many files (handles) the process watches.
  private var watchedFiles = 0
  /// Bumped whenever a registration is added or removed (with `lock` held): a
  /// ``RegistrationsCache`` made at another revision is stale.
  private var registrationsRevision = 0 {
    didSet { registrationsRevisionSeen.store(registrationsRevision, ordering: .releasing) }
  }
  /// `registrationsRevision`, for the reader's look at its cache without the lock.
  private let registrationsRevisionSeen = Atomic<Int>(0)
  /// Bumped whenever a directory starts or stops being wanted.
  private var wantedRevision = 0 {
    didSet { wantedRevisionSeen.store(wantedRevision, ordering: .releasing) }
  }
  private var reader: InotifyReader?
  private var wakeFile: FileDescriptor?

  init(registrationWait: Duration = .milliseconds(50), registrationTimeout: Duration = .seconds(5)) {
    self.registrationWait = registrationWait
    self.registrationTimeout = registrationTimeout
  }

  /// Tells `onEvent` what happens to the file at `target` until the token is cancelled or
  /// released. ``FileWatchEvent`` says what is delivered, when and on which thread.
  ///
  /// Returns once the watch is in place, so that a read made afterwards misses no change; or
  /// once it has failed, which `onEvent` then hears as ``FileWatchEvent/unwatched(_:)``; and never
  /// later than ``registrationWait``: then `onEvent` hears ``FileWatchEvent/resynchronize`` once the
  /// watch is in place, so that a read made afterwards still misses no change. A file whose
  /// directory is already watched returns at once, without waiting for the reader.
  ///
  /// - Parameters:
  ///   - target: An absolute, lexically normal path with a file name.
  ///   - admits: Whether an event read for the file is worth delivering; called on the thread
  ///     that read it, before anything is queued or another thread woken, so it must be quick
  ///     and never wait (a look at the file's state, say). `nil`: every event is.
  ///   - onEvent: Receives the events, as ``FileWatchEvent`` says.
  func watch(
    file target: FilePath,
    admitting admits: (@Sendable (FileWatchEvent) -> Bool)? = nil,
    onEvent: @escaping @Sendable (FileWatchEvent) -> Void
  ) -> WatchToken {
    let (directory, name) = target.directoryAndName ?? (target, "")
    return watch(directory: directory, name: name, admitting: admits, onEvent: onEvent)
  }

  /// As ``watch(file:admitting:onEvent:)``, for the file `name` in `directory` (an absolute,
  /// lexically normal path), when the caller has both already: taking a path apart costs more
  /// than the rest of a registration.
  func watch(
    directory: FilePath,
    name: String,
    admitting admits: (@Sendable (FileWatchEvent) -> Bool)?,
    onEvent: @escaping @Sendable (FileWatchEvent) -> Void
  ) -> WatchToken {
    lock.lock()
    let entry: Directory
    let directoryKey = PathKey(directory)
    if let existing = directories[directoryKey] {
      entry = existing
    } else {
      entry = Directory(path: directory)
      directories[directoryKey] = entry
      wantedRevision += 1
      startReaderIfNeeded()
      wake()
    }
    // The entry's copy of the path: one string for all the directory's registrations.
    let registration = FileWatchRegistration(
      watcher: self, directory: entry.path, name: name, admits: admits, onEvent: onEvent
    )
    entry.files[name] = entry.files[name]?.adding(registration) ?? .one(registration)
    entry.count += 1
    registrationsRevision += 1
    watchedFiles += 1
    DeliveryThreads.shared.watchedFilesChanged(count: watchedFiles)
    if entry.state == .pending {
      let deadline = Date().addingTimeInterval(registrationWait.seconds)
      while entry.state == .pending, lock.wait(until: deadline) {}
    }
    if entry.state == .pending {
      entry.owesResynchronize = true
      if !entry.isTimeoutScheduled {
        entry.isTimeoutScheduled = true
        DispatchQueue.global().asyncAfter(deadline: .now() + registrationTimeout.seconds) { [self] in
          reportUnanswered(entry)
        }
      }
    }
    let failure: WatchFailure? = if case let .failed(failure) = entry.state { failure } else { nil }
    lock.unlock()
    if let failure { registration.post(.unwatched(failure)) }
    return WatchToken(unregistering: registration)
  }

  /// Tells the registrations of `entry` that they are not watched, if the reader has still not
  /// answered for it.
  private func reportUnanswered(_ entry: Directory) {
    let registrations = lock.withLock { () -> [FileWatchRegistration] in
      entry.isTimeoutScheduled = false
      guard entry.state == .pending, directories[PathKey(entry.path)] === entry else { return [] }
      return Array(entry.files.values.joined())
    }
    let failure = WatchFailure(errno: nil, reason: "the file watcher did not answer within \(registrationTimeout)")
    for registration in registrations { registration.post(.unwatched(failure)) }
  }

  /// Stops `registration`'s events and forgets it; ``WatchToken`` calls it.
  func unregister(_ registration: FileWatchRegistration) {
    registration.cancel()
    lock.lock()
    defer { lock.unlock() }
    guard let entry = directories[PathKey(registration.directory)],
      let registrations = entry.files[registration.name],
      registrations.contains(where: { $0 === registration })
    else { return }
    entry.files[registration.name] = registrations.removing(registration)
    entry.count -= 1
    registrationsRevision += 1
    watchedFiles -= 1
    DeliveryThreads.shared.watchedFilesChanged(count: watchedFiles)
    if entry.count == 0 {
      directories[PathKey(registration.directory)] = nil
      wantedRevision += 1
      // Nothing waits for the removal: it happens when the reader next wakes.
      wake()
    }
  }

  /// What the registrations of `directory` know of its watch; `nil` when it has none. For tests.
  func state(of directory: FilePath) -> DirectoryState? {
    lock.withLock { directories[PathKey(directory)]?.state }
  }

  // MARK: The reader's side

  /// The directories wanted now, and the revision they stand for.
  func wantedDirectories() -> (revision: Int, directories: [FilePath]) {
    lock.withLock { (wantedRevision, directories.keys.map(\.path)) }
  }

  /// Whether the wanted directories changed since `revision`.
  func isWanted(changedSince revision: Int) -> Bool {
    // Stored under the lock before the wake-up that follows every change of it.
    wantedRevisionSeen.load(ordering: .acquiring) != revision
  }

  /// Waits until the wanted directories change from `revision` or `deadline` passes.
  func waitForWantedChange(since revision: Int, until deadline: Date) {
    lock.lock()
    defer { lock.unlock() }
    while wantedRevision == revision, lock.wait(until: deadline) {}
  }

  /// Takes in the reader's view of the `planned` directories (those not in `failures` are
  /// watched), tells the registrations whose directory stopped or resumed being watched, and has
  /// those of `resynchronizing` directories (every one, when `nil`) compare with the disk.
  /// Directories registered since the reader made its plan stay pending.
  func publish(
    planned: some Sequence<FilePath>,
    failures: [FilePath: WatchFailure],
    resynchronizing: Set<FilePath>?
  ) {
    var deliveries: [(Registrations, FileWatchEvent)] = []
    lock.lock()
    for path in planned {
      guard let entry = directories[PathKey(path)] else { continue }
      let state = failures[path].map(DirectoryState.failed) ?? .watched
      var event: FileWatchEvent?
      switch state {
      case let .failed(failure):
        if entry.state != state {
          entry.owesResynchronize = true
          event = .unwatched(failure)
        }
      case .watched, .pending:
        // A directory just registered needs no resynchronize: its registrations read after
        // registering.
        let isChanged = entry.state != .pending && resynchronizing?.contains(path) ?? true
        if entry.owesResynchronize || isChanged {
          entry.owesResynchronize = false
          event = .resynchronize
        }
      }
      entry.state = state
      if let event {
        for registrations in entry.files.values { deliveries.append((registrations, event)) }
      }
    }
    lock.broadcast()
    lock.unlock()
    // Outside the lock: scheduling a delivery may start a thread.
    for (registrations, event) in deliveries {
      for registration in registrations { registration.post(event) }
    }
  }

  /// The registrations of the file the reader routed an event to last, and the revision of the
  /// registrations they were found at: the next event about the same file, most often the next
  /// change, finds them here without the lock and two hash look-ups (measured at 16 watching
  /// processes: about 5 % of a watcher's CPU per change, most of it the lock's cache misses).
  /// The reader's own, used by one thread at a time.
  struct RegistrationsCache {
    fileprivate var directory: PathKey?
    fileprivate var name = ""
    fileprivate var revision = -1
    fileprivate var registrations: Registrations?
  }

  /// Queues `event` for the registrations of the file `name` in `directory` that admit it, and
  /// returns those the caller must now deliver (see ``FileWatchRegistration/enqueue(_:)``).
  ///
  /// - Parameter cache: The reader's cache of the last file's registrations, used when no
  ///   registration was added or removed since it was made, and updated otherwise.
  func route(
    _ event: FileWatchEvent, directory: PathKey, name: String, cache: inout RegistrationsCache
  ) -> ReadyRegistrations {
    // A registration removed after this look is cancelled first, and a cancelled one takes no
    // event: as when the registrations are copied out of the lock and offered outside it.
    if cache.revision != registrationsRevisionSeen.load(ordering: .acquiring) || cache.name != name
      || cache.directory != directory
    {
      cache = lock.withLock {
        RegistrationsCache(
          directory: directory, name: name, revision: registrationsRevision,
          registrations: directories[directory]?.files[name]
        )
      }
    }
    return route(event, to: cache.registrations)
  }

  private func route(_ event: FileWatchEvent, to registrations: Registrations?) -> ReadyRegistrations {
    switch registrations {
    case nil: .none
    case let .one(registration)?: registration.offer(event) ? .one(registration) : .none
    case let .many(registrations)?: ReadyRegistrations(registrations.filter { $0.offer(event) })
    }
  }

  /// Posts `event` to the registrations of the file `name` in `directory` (an absolute, lexically
  /// normal path), for delivery on the pool.
  func post(_ event: FileWatchEvent, toFile name: String, in directory: FilePath) {
    guard let registrations = registrations(of: name, in: PathKey(directory)) else { return }
    for registration in registrations { registration.post(event) }
  }

  /// Delivers `event` to the registrations of the file `name` in `directory` on this thread, once
  /// (see ``FileWatchRegistration/deliverPendingOnce()``); a registration whose delivery is
  /// under way elsewhere takes it in that delivery instead.
  func deliverHere(_ event: FileWatchEvent, toFile name: String, in directory: FilePath) {
    guard let registrations = registrations(of: name, in: PathKey(directory)) else { return }
    for registration in registrations where registration.enqueue(event) { registration.deliverPendingOnce() }
  }

  /// The registrations of the file `name` in `directory`; `nil` when it has none.
  private func registrations(of name: String, in directory: PathKey) -> Registrations? {
    lock.withLock { directories[directory]?.files[name] }
  }

  /// Has every registration compare with the disk: events were lost.
  func resynchronizeAll() {
    let all = lock.withLock { directories.values.flatMap { $0.files.values.joined() } }
    for registration in all { registration.post(.resynchronize) }
  }

  /// The descriptor of the unnamed file whose writes wake the reader.
  var wakeFileDescriptor: FileDescriptor? {
    lock.withLock { wakeFile }
  }

  /// Wakes the reader out of its wait for an event.
  func wakeReader() {
    lock.withLock { wake() }
  }

  /// Call with `lock` held.
  private func wake() {
    // A delivery of the reading thread that armed no timer lets another thread read on soon.
    DeliveryThreads.shared.readerIsWanted()
    guard let wakeFile else { return }
    _ = try? [UInt8(1)].withUnsafeBytes { try wakeFile.write(toAbsoluteOffset: 0, $0) }
    // The reader may be waiting for the wanted directories to change rather than for an event.
    lock.broadcast()
  }

  /// Call with `lock` held.
  private func startReaderIfNeeded() {
    guard reader == nil else { return }
    wakeFile = Self.openWakeFile()
    let reader = InotifyReader(watcher: self)
    self.reader = reader
    DeliveryThreads.shared.startReading { reader.readEvents() }
  }

  /// An unnamed file in the first directory that takes one: its writes are inotify events that
  /// wake the reader.
  private static func openWakeFile() -> FileDescriptor? {
    var candidates: [String] = []
    if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] { candidates.append(runtime) }
    candidates += ["/dev/shm", "/tmp", NSTemporaryDirectory()]
    for directory in candidates {
      if let file = try? FileDescriptor.openUnnamedFile(in: FilePath(directory)) { return file }
    }
    return nil
  }
}

extension Duration {
  /// The duration in seconds, for APIs that take a `TimeInterval`.
  var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
