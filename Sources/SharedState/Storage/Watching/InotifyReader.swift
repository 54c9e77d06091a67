import Dispatch
import Foundation
import Synchronization
import SystemPackage

/// The reader of inotify events, and the one caller of libinotifytools: it starts the library,
/// brings the watches in line with a ``WatchPlan`` of the wanted directories, waits for events
/// and routes each to the ``DirectoryWatcher``'s registrations.
///
/// ``DeliveryThreads`` runs it on one thread at a time (the reading thread), which delivers what
/// an event leaves once ``readEvents()`` has returned: the library's state is process-global
/// and unlocked, and the reading thread is its one caller.
///
/// It never parks: when the library cannot start, it waits for a growing pause (or for a new
/// registration) and tries again; when a directory cannot be watched, it wakes itself after a
/// pause and tries again. When reading fails, it starts the library afresh; the events of the
/// old instance are lost, so every registration resynchronizes.
///
/// `@unchecked Sendable`: all its mutable state is touched by the reading thread only, inside
/// ``readEvents()``, which only ``DeliveryThreads``' reading thread runs; debug builds check
/// that no two threads are ever inside at once.
final class InotifyReader: @unchecked Sendable {
  private let watcher: DirectoryWatcher
  /// Whether a thread is inside ``readEvents()``: debug builds check that only one ever is.
  private let isReading = Atomic<Bool>(false)

  /// One inotify watch.
  private struct ActiveWatch {
    var descriptor: WatchDescriptor
    var events: InotifyEvents
    /// The directory the watch was placed on, to notice one created anew at the same path.
    var identity: DirectoryIdentity?
    /// The kernel dropped it (the directory was removed, its file system unmounted).
    var isDead = false
  }

  /// A directory's device and inode.
  struct DirectoryIdentity: Hashable {
    let device: UInt64
    let inode: UInt64
  }

  // MARK: Reading thread only

  // Unchecked exclusivity: only the reading thread touches these, inside `readEvents()` (checked
  // in debug builds), and no access to one of them overlaps another access to it. Checked, every
  // access cost a look-up of the thread's access set (about 1.5 % of a watching process's CPU
  // per change, in `perf`).

  /// The library's inotify descriptor, while it is started.
  @exclusivity(unchecked) private var libraryDescriptor: FileDescriptor?
  @exclusivity(unchecked) private var hasStartedBefore = false
  @exclusivity(unchecked) private var wakeDescriptor: WatchDescriptor?
  @exclusivity(unchecked) private var plan = WatchPlan(wanted: [], exists: { _ in false }) {
    didSet { forgetRoutes() }
  }
  @exclusivity(unchecked) private var appliedRevision = -1
  @exclusivity(unchecked) private var watches: [FilePath: ActiveWatch] = [:]
  @exclusivity(unchecked) private var pathsByDescriptor: [WatchDescriptor: FilePath] = [:] {
    didSet { forgetRoutes() }
  }
  /// What each watch's events are routed by, learnt at its first event: asking the plan and
  /// keying the path both hash the path, on every event.
  @exclusivity(unchecked) private var routes: [WatchDescriptor: WatchRoute] = [:]
  /// The route of the watch that saw the last event, with its descriptor: most reads are about
  /// one directory, and its events then cost no hashing at all.
  @exclusivity(unchecked) private var lastRoute: (descriptor: WatchDescriptor, route: WatchRoute)?
  /// The watch that served each wanted directory when last planned, to tell which ones changed.
  @exclusivity(unchecked) private var servingWatches: [FilePath: WatchDescriptor?] = [:]
  @exclusivity(unchecked) private var mustReplan = false
  /// Whether an event was read since the plan was last applied.
  @exclusivity(unchecked) private var hasReadSincePlan = true
  /// Paths under which a wanted directory appeared, went or was replaced since the last plan:
  /// it may have held files, changed, in between, unseen.
  @exclusivity(unchecked) private var disturbedPaths: Set<FilePath> = []
  @exclusivity(unchecked) private var failures: [FilePath: WatchFailure] = [:]
  @exclusivity(unchecked) private var backoff = RetryBackoff()
  @exclusivity(unchecked) private var retryDue: Date?
  @exclusivity(unchecked) private var pace = ReadingPace()
  /// Whether the last event announced another of the same system call (see
  /// ``InotifyEvent/isFollowedInItsCall``), so that the next call is not expected to wait.
  @exclusivity(unchecked) private var nextEventIsQueued = false
  /// Where the library kept the event it returned last, and the last file name an event named
  /// (see ``InotifyTools/nextEvent(lastPlace:lastName:)``).
  @exclusivity(unchecked) private var lastPlace: UInt = 0
  @exclusivity(unchecked) private var lastEventName = ""
  /// The file events routed since the library last read from the kernel: a look made for one of
  /// them answers for the same event of the same file later in that read, which was queued
  /// before it (a write's exchange raises two events on the file's name; a burst, many). The
  /// first `routedInReadCount` entries count; the others are left over from earlier reads, kept
  /// to be written over (emptying the array on every read was about 2 % of a watching
  /// process's user time per change).
  @exclusivity(unchecked) private var routedInRead: [RoutedEvent] = []
  @exclusivity(unchecked) private var routedInReadCount = 0
  /// The registrations of the file the last event was routed to (see
  /// ``DirectoryWatcher/RegistrationsCache``).
  @exclusivity(unchecked) private var registrationsCache = DirectoryWatcher.RegistrationsCache()

  /// What the events of one watch are routed by. A class: each event takes its watch's route,
  /// one retain rather than one for each of the three.
  private final class WatchRoute {
    /// The watched path.
    let path: FilePath
    /// The names the watch guards (see ``WatchPlan/isGuarded(_:in:)``); `nil` when it guards none.
    let guardedNames: Set<String>?
    /// The key its files' events are routed by; `nil` when they do not count (its path is no
    /// watched directory of the plan).
    let routingKey: PathKey?

    init(path: FilePath, guardedNames: Set<String>?, routingKey: PathKey?) {
      self.path = path
      self.guardedNames = guardedNames
      self.routingKey = routingKey
    }
  }

  private struct RoutedEvent: Equatable {
    let descriptor: WatchDescriptor
    let name: String
    let event: FileWatchEvent
  }

  init(watcher: DirectoryWatcher) {
    self.watcher = watcher
  }

  /// One turn of the reader: starts the library if needed, applies the plan when the wanted
  /// directories changed, or waits for one event and routes it.
  ///
  /// - Returns: The registrations the caller must now deliver.
  func readEvents() -> ReadyRegistrations {
    assert(isReading.exchange(true, ordering: .acquiring) == false, "two threads read the watcher's events at once")
    defer { assert(isReading.exchange(false, ordering: .releasing)) }
    guard libraryDescriptor != nil || startLibrary() else { return [] }
    if let retryDue, Date() >= retryDue {
      self.retryDue = nil
      mustReplan = true
    }
    // A change of the wanted directories waits for one event read after the last plan: in a
    // program that keeps registering directories, plans would otherwise leave no turn for events.
    // (Each change writes the wake-up file, an event itself, so the read never waits for long.)
    if mustReplan || (hasReadSincePlan && watcher.isWanted(changedSince: appliedRevision)) {
      apply(resynchronizing: [])
      return []
    }
    // The clock is read only around a call that may wait: the event after the first half of a
    // move is, but for a rare race, already in the library's buffer (a write's exchange raises
    // four events, and reading the clock before each was a sixth of a watching thread's user
    // time per change). A wait that was not timed is only left out of the pace.
    var start: UInt64?
    if !nextEventIsQueued {
      var now = MonotonicClock.nanoseconds()
      // In a burst of writes, events gather for a moment so that one wake-up reads many (the
      // delivery threads' timer slack is 1 ns: the pause lasts what it says).
      if pace.isInBurst, case let pause = pace.pause(at: now), pause > 0 {
        CurrentThread.sleep(nanoseconds: pause)
        now = MonotonicClock.nanoseconds()
      }
      start = now
    }
    let next = InotifyTools.nextEvent(lastPlace: &lastPlace, lastName: &lastEventName)
    hasReadSincePlan = true
    switch next {
    case let .success(event):
      // Only a call that read from the kernel can have waited.
      if event.beginsRead {
        if let start { pace.waited(from: start, to: MonotonicClock.nanoseconds()) }
        routedInReadCount = 0
      }
      nextEventIsQueued = event.isFollowedInItsCall
      return handle(event)
    case .failure:
      // A broken read: start over rather than spin on it.
      restartLibrary()
      return []
    }
  }

  // MARK: Starting

  /// Starts libinotifytools and watches the wake-up file; on failure, reports it to every
  /// registration and waits before the next try.
  private func startLibrary() -> Bool {
    do throws(InotifyStartFailure) {
      let descriptor = try InotifyTools.initialize()
      // Once started, the library is stopped again on every way out but success: a library
      // left started makes the next try fail as another owner's.
      do throws(Errno) {
        guard let wakeFile = watcher.wakeFileDescriptor else { throw .noSuchFileOrDirectory }
        wakeDescriptor = try descriptor.addWatch(FilePath("/proc/self/fd/\(wakeFile.rawValue)"), for: .modified)
      } catch {
        InotifyTools.cleanup()
        throw .system(error)
      }
      libraryDescriptor = descriptor
    } catch {
      let (revision, wanted) = watcher.wantedDirectories()
      let failure = WatchFailure(errno: error.errno, reason: error.description)
      watcher.publish(
        planned: wanted,
        failures: Dictionary(uniqueKeysWithValues: wanted.map { ($0, failure) }),
        resynchronizing: []
      )
      let pause = backoff.failed()
      watcher.waitForWantedChange(since: revision, until: Date().addingTimeInterval(pause.seconds))
      return false
    }
    watches = [:]
    pathsByDescriptor = [:]
    // Everything may have changed unseen since an earlier instance stopped.
    let resynchronizeAll = hasStartedBefore
    hasStartedBefore = true
    apply(resynchronizing: resynchronizeAll ? nil : [])
    return libraryDescriptor != nil
  }

  /// Drops the library's state and starts it again.
  private func restartLibrary() {
    InotifyTools.cleanup()
    libraryDescriptor = nil
    wakeDescriptor = nil
    lastPlace = 0
    routedInRead = []
    routedInReadCount = 0
    nextEventIsQueued = false
  }

  // MARK: Applying the plan

  /// Watches what the plan for the wanted directories says, then tells the watcher which
  /// directories are (not) watched and which must resynchronize (`nil`: all).
  private func apply(resynchronizing: Set<FilePath>?) {
    mustReplan = false
    hasReadSincePlan = false
    guard let settled = settlePlan() else {
      restartLibrary()
      return
    }
    appliedRevision = settled.revision
    let changed = noteServingWatches(of: settled.wanted)
    watcher.publish(
      planned: settled.wanted,
      failures: failures,
      resynchronizing: resynchronizing.map { $0.union(changed) }
    )
    scheduleRetry()
  }

  /// Watches the plan for the wanted directories, then looks again, until the plan holds still:
  /// a directory created between the look that made a plan and the watch raised no event.
  ///
  /// - Returns: The wanted directories the watches in place serve, and their revision; `nil`
  ///   when the library must start afresh.
  private func settlePlan() -> (revision: Int, wanted: [FilePath])? {
    var (revision, wanted) = watcher.wantedDirectories()
    var next = WatchPlan(wanted: wanted, exists: Self.isDirectory)
    for attempt in 1...8 {
      guard reconcile(with: next) else { return nil }
      let (latestRevision, latestWanted) = watcher.wantedDirectories()
      let again = WatchPlan(wanted: latestWanted, exists: Self.isDirectory)
      if again == next {
        (revision, wanted) = (latestRevision, latestWanted)
        break
      }
      // Still moving after the last try: what is told is what the watches in place serve,
      // `wanted` of `revision`. A directory wanted since is neither watched nor failed: it stays
      // pending, and the revision left behind has the next turn plan it.
      if attempt == 8 { break }
      (revision, wanted, next) = (latestRevision, latestWanted, again)
    }
    plan = next
    return (revision, wanted)
  }

  /// Notes why each of the `wanted` directories that no watch serves is not watched, and the
  /// watch that serves each of the others.
  ///
  /// - Returns: The directories that may have changed unseen: those now served by another watch
  ///   than before (they appeared, went, or were created anew, and the events of a watch that
  ///   was removed are not read), and those disturbed since the last plan.
  private func noteServingWatches(of wanted: [FilePath]) -> Set<FilePath> {
    failures = [:]
    var changed: Set<FilePath> = []
    for directory in wanted {
      let serving = plan.servingPath[directory] ?? directory
      let descriptor = watches[serving]?.descriptor
      if descriptor == nil {
        failures[directory] = watchFailures[serving]
          ?? WatchFailure(errno: nil, reason: "\(serving) could not be watched")
      }
      if let known = servingWatches[directory], known != descriptor { changed.insert(directory) }
      servingWatches[directory] = descriptor
    }
    for directory in wanted where disturbedPaths.contains(where: directory.isSameOrInside) {
      changed.insert(directory)
    }
    disturbedPaths = []
    for directory in servingWatches.keys where !wanted.contains(directory) {
      servingWatches[directory] = nil
    }
    return changed
  }

  /// Has the directories that could not be watched tried again after a growing pause, or
  /// starts the pauses over once every one is watched.
  private func scheduleRetry() {
    if failures.isEmpty {
      backoff.succeeded()
      retryDue = nil
    } else if retryDue == nil {
      let pause = backoff.failed()
      retryDue = Date().addingTimeInterval(pause.seconds)
      DispatchQueue.global().asyncAfter(deadline: .now() + pause.seconds) { [watcher] in
        watcher.wakeReader()
      }
    }
  }

  /// Why each path of the last reconciliation could not be watched.
  private var watchFailures: [FilePath: WatchFailure] = [:]

  /// Adds, changes and removes inotify watches to match `next`.
  ///
  /// Watches go on the library's descriptor directly rather than through
  /// `inotifytools_watch_file()`: the library files watches by path and keeps the entry of a
  /// watch the kernel dropped, so that watching a removed and recreated directory again would
  /// answer with the dead watch's descriptor. Only the library's reading uses its tables, and it
  /// does not need them.
  ///
  /// - Returns: `false` when the library must start afresh (its descriptor is gone).
  private func reconcile(with next: WatchPlan) -> Bool {
    guard let libraryDescriptor else { return false }
    watchFailures = [:]
    for (path, watch) in watches {
      let isSameDirectory = !watch.isDead && Self.identity(of: path) == watch.identity
      // A watch whose events alone differ is changed in place, below.
      if next.targets[path] != nil && isSameDirectory { continue }
      watches[path] = nil
      pathsByDescriptor[watch.descriptor] = nil
      // A watch the kernel already dropped (its directory removed) is no error.
      if !watch.isDead { try? libraryDescriptor.removeWatch(watch.descriptor) }
    }
    for (path, events) in next.targets where watches[path]?.events != events {
      let identity = Self.identity(of: path)
      do {
        let descriptor = try libraryDescriptor.addWatch(path, for: events)
        watches[path] = ActiveWatch(descriptor: descriptor, events: events, identity: identity)
        pathsByDescriptor[descriptor] = path
      } catch .badFileDescriptor {
        return false
      } catch {
        watchFailures[path] = WatchFailure(errno: error, reason: Self.reason(watching: path, error))
      }
    }
    return true
  }

  private static func reason(watching path: FilePath, _ error: Errno) -> String {
    switch error {
    case .noSpace:
      "\(path) cannot be watched: the user's limit of inotify watches (fs.inotify.max_user_watches) is reached"
    case .noSuchFileOrDirectory, .notDirectory:
      "\(path) went away while it was being watched"
    default:
      "\(path) cannot be watched: \(error)"
    }
  }

  // MARK: Events

  /// Acts on one event; returns the registrations the caller must deliver.
  private func handle(_ event: InotifyEvent) -> ReadyRegistrations {
    // A companion file's events carry a name, so none of them ends a watch: nothing to do.
    if event.descriptor == wakeDescriptor || event.isAboutCompanionFile { return [] }
    if event.events.contains(.queueOverflowed) {
      watcher.resynchronizeAll()
      return []
    }
    guard let route = route(of: event.descriptor) else { return [] }
    let path = route.path
    if !event.events.isDisjoint(with: InotifyEvents.watchEnded) {
      if !event.events.isDisjoint(with: [.ignored, .deletedSelf, .unmounted]) {
        watches[path]?.isDead = true
      }
      disturbedPaths.insert(path)
      mustReplan = true
      return []
    }
    let name = event.name
    // Whatever arrives or leaves under a guarded name changes the plan: a directory, or a
    // symbolic link put where a directory was (its events carry no `IN_ISDIR`).
    if !event.events.isDisjoint(with: InotifyEvents.entryArrivals),
      let guarded = route.guardedNames, guarded.contains(name)
    {
      disturbedPaths.insert(path.appending(name))
      mustReplan = true
      return []
    }
    if event.events.contains(.isDirectory) { return [] }
    // Companion files' events were dropped above, from the name as the kernel gave it.
    guard !name.isEmpty, let routingKey = route.routingKey else {
      return []
    }
    // A file created empty is written next: its close or its rename into place is what counts.
    let change: FileWatchEvent
    if event.events.contains(.closedAfterWriting) {
      change = .writtenInPlace
    } else if !event.events.isDisjoint(with: [.movedFrom, .movedTo, .deleted]) {
      change = .replaced
    } else {
      return []
    }
    let routed = RoutedEvent(descriptor: event.descriptor, name: name, event: change)
    // By index: a slice of the array would retain its storage on every event.
    for index in 0..<routedInReadCount where routedInRead[index] == routed { return [] }
    // Bounded: a read about many files looks at those past the first few once per event.
    if routedInReadCount < routedInRead.count {
      routedInRead[routedInReadCount] = routed
      routedInReadCount += 1
    } else if routedInReadCount < 16 {
      routedInRead.append(routed)
      routedInReadCount += 1
    }
    return watcher.route(change, directory: routingKey, name: name, cache: &registrationsCache)
  }

  private func forgetRoutes() {
    routes = [:]
    lastRoute = nil
  }

  /// The route of the events of the watch `descriptor`; `nil` when it is not one of the watches
  /// in place.
  private func route(of descriptor: WatchDescriptor) -> WatchRoute? {
    if let lastRoute, lastRoute.descriptor == descriptor { return lastRoute.route }
    let route: WatchRoute
    if let known = routes[descriptor] {
      route = known
    } else {
      guard let path = pathsByDescriptor[descriptor] else { return nil }
      route = WatchRoute(
        path: path,
        guardedNames: plan.guardedNames[path],
        routingKey: plan.watchedDirectories.contains(path) ? PathKey(path) : nil
      )
      routes[descriptor] = route
    }
    lastRoute = (descriptor, route)
    return route
  }

  // MARK: The file system

  // A watched directory is followed through symbolic links, as inotify's watch and the opens of
  // the files in it are (only a file's own name is never followed: see `RefusedEntry`).

  private static func isDirectory(_ path: FilePath) -> Bool {
    (try? path.stat(followTargetSymlink: true))?.type == .directory
  }

  private static func identity(of path: FilePath) -> DirectoryIdentity? {
    guard let status = try? path.stat(followTargetSymlink: true) else { return nil }
    return DirectoryIdentity(device: UInt64(status.deviceID.rawValue), inode: UInt64(status.inode.rawValue))
  }
}
