import CInotifyTools
import CSystemCalls
import Foundation
import IssueReporting
import SystemPackage

/// Watches directories with inotify, through libinotifytools, and reports changes to their
/// entries.
///
/// libinotifytools keeps process-global state that nothing locks, so one thread of the process,
/// the owner, makes every call into it: it waits for events and applies registrations. It is
/// woken for a registration by a write to an unnamed file it watches, because the library's
/// descriptor cannot be waited on any other way and its timeouts are whole seconds.
///
/// One inotify watch serves each directory however many handlers it has; it is removed with the
/// last one. A wanted directory that does not exist is waited for through a watch on its nearest
/// existing ancestor; when it appears it is watched and its handlers rescan. When a watched
/// directory is removed or moved its handlers rescan (their files are gone) and it is waited for
/// again. The library keeps a stale entry for a watch the kernel dropped, so watching that path
/// again starts the library afresh: every watch is added anew and every handler rescans, since
/// the old instance's queued events are lost. Every handler rescans, too, when the kernel's event
/// queue overflows.
///
/// Handlers run on the owner thread, one event at a time: keep them short.
final class DirectoryWatcher: @unchecked Sendable {
  // `@unchecked Sendable`: the properties under "Shared" are only touched with `lock` held, and
  // those under "Owner thread" only by the owner thread.

  /// The watcher every key uses.
  static let shared = DirectoryWatcher()

  /// Called with each event of one watched directory.
  typealias Handler = @Sendable (DirectoryEvent) -> Void

  private static let directoryEvents =
    UInt32(IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_CREATE)
    | UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

  // MARK: Shared

  private let lock = NSCondition()
  private var handlers: [FilePath: [Int: Handler]] = [:]
  private var nextHandlerID = 0
  private var requestedRevision = 0
  private var appliedRevision = 0
  private var failures: [FilePath: Errno] = [:]
  private var startError: (any Error)?
  private var isStarted = false
  private var isOwnerReady = false
  private var ownerThread: Thread?
  private var wakeFile: FileDescriptor?
  /// A copy of the owner's `watches`, for inspection from other threads.
  private var publishedWatches: [FilePath: Int32] = [:]

  // MARK: Owner thread

  private var wakeWatch: Int32 = -1
  private var watchedPaths: [Int32: Set<FilePath>] = [:]
  private var watches: [FilePath: Int32] = [:]
  /// Wanted directories that do not exist, each waited for through an ancestor's watch.
  private var missingDirectories: Set<FilePath> = []
  /// Paths whose watch the kernel dropped while the library still lists it: watching one of
  /// them again needs a fresh library state.
  private var stalePaths: Set<FilePath> = []
  /// Wanted directories that started or stopped being watched since their handlers last heard:
  /// a file in them may have changed unseen, so they rescan. Guarded by `lock` as well.
  private var pendingRescans: Set<FilePath> = []

  private init() {}

  /// Calls `handler` with the events of `directory` until the subscription is cancelled.
  ///
  /// Returns once the watch is in place (or, for a directory that does not exist yet, once its
  /// nearest existing ancestor is watched), so that a caller can then read what it watches
  /// without missing a change. It never waits for an event.
  ///
  /// - Parameters:
  ///   - directory: An absolute, lexically normal directory path.
  ///   - handler: Called on the watcher's thread.
  /// - Throws: The system's error when the directory cannot be watched (the user's inotify
  ///   watch limit is reached, say).
  func watch(directory: FilePath, handler: @escaping Handler) throws -> WatchToken {
    let id = try register(directory: directory, handler: handler)
    return WatchToken { [self] in unregister(directory: directory, id: id) }
  }

  private func register(directory: FilePath, handler: @escaping Handler) throws -> Int {
    lock.lock()
    defer { lock.unlock() }
    try startIfNeeded()
    let id = nextHandlerID
    nextHandlerID += 1
    handlers[directory, default: [:]][id] = handler
    try applyRegistrations()
    if let failure = failures[directory] {
      handlers[directory]?[id] = nil
      if handlers[directory]?.isEmpty == true { handlers[directory] = nil }
      throw failure
    }
    return id
  }

  private func unregister(directory: FilePath, id: Int) {
    lock.lock()
    defer { lock.unlock() }
    handlers[directory]?[id] = nil
    if handlers[directory]?.isEmpty == true {
      handlers[directory] = nil
      // Nothing waits for the removal: it happens when the owner next wakes.
      requestedRevision += 1
      wake()
    }
  }

  /// Has the owner bring the watches in line with `handlers`, and waits for it. Call with
  /// `lock` held.
  private func applyRegistrations() throws {
    requestedRevision += 1
    let revision = requestedRevision
    if Thread.current == ownerThread {
      if applyRequestedRevision() {
        lock.unlock()
        rebuild()
        lock.lock()
      }
      return
    }
    wake()
    while appliedRevision < revision {
      lock.wait()
    }
  }

  private func wake() {
    guard let wakeFile else { return }
    _ = try? [UInt8(1)].withUnsafeBytes { try wakeFile.write(toAbsoluteOffset: 0, $0) }
  }

  // MARK: Starting

  /// Starts the owner thread and waits until it is ready. Call with `lock` held.
  private func startIfNeeded() throws {
    if let startError { throw startError }
    guard !isStarted else { return }
    isStarted = true
    wakeFile = try Self.openWakeFile()
    let thread = Thread { [self] in run() }
    thread.name = "SharedState.DirectoryWatcher"
    ownerThread = thread
    thread.start()
    while !isOwnerReady {
      lock.wait()
    }
    if let startError { throw startError }
  }

  private static func openWakeFile() throws -> FileDescriptor {
    var candidates: [String] = []
    if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] { candidates.append(runtime) }
    candidates += ["/dev/shm", "/tmp", NSTemporaryDirectory()]
    var lastError = Errno.noSuchFileOrDirectory
    for directory in candidates {
      let descriptor = shared_state_open_unnamed_file(directory)
      if descriptor >= 0 { return FileDescriptor(rawValue: descriptor) }
      lastError = Errno(rawValue: errno)
    }
    throw lastError
  }

  // MARK: The owner thread

  private func run() {
    let ready = initializeLibrary()
    lock.lock()
    if case let .failure(error) = ready { startError = error }
    isOwnerReady = true
    lock.broadcast()
    lock.unlock()
    guard case .success = ready else { return }

    while true {
      lock.lock()
      let needsRebuild = appliedRevision < requestedRevision && applyRequestedRevision()
      lock.unlock()
      if needsRebuild { rebuild() }
      deliverPendingRescans()

      guard let event = inotifytools_next_event(0) else {
        // Only a failed read gets here; start over rather than spin on a broken descriptor.
        rebuild()
        continue
      }
      let descriptor = event.pointee.wd
      let mask = event.pointee.mask
      let name = String(cString: shared_state_event_name(event))
      handle(descriptor: descriptor, mask: mask, name: name)
    }
  }

  private func initializeLibrary() -> Result<Void, any Error> {
    guard inotifytools_initialize() != 0 else {
      return .failure(Errno(rawValue: inotifytools_error()))
    }
    if let error = InotifyDescriptor.protect() {
      return .failure(error)
    }
    guard let wakeFile else { return .failure(Errno.badFileDescriptor) }
    let wakePath = "/proc/self/fd/\(wakeFile.rawValue)"
    guard inotifytools_watch_file(wakePath, Int32(IN_MODIFY)) != 0 else {
      return .failure(Errno(rawValue: inotifytools_error()))
    }
    wakeWatch = inotifytools_wd_from_filename(wakePath)
    return .success(())
  }

  private func handle(descriptor: Int32, mask: UInt32, name: String) {
    if descriptor == wakeWatch { return }
    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
      deliver(.rescan, to: nil)
      return
    }
    if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED) != 0 {
      // IN_IGNORED also follows this watcher's own removals, of watches it no longer lists.
      if watchedPaths[descriptor] != nil {
        directoryWentAway(descriptor: descriptor, mask: mask)
      }
      return
    }
    guard let directories = watchedPaths[descriptor] else { return }
    let isDirectory = mask & UInt32(IN_ISDIR) != 0
    if isDirectory, mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 {
      // A directory on the way to a missing wanted one appeared or went: watch what exists now,
      // and have the wanted one's handlers rescan, since it may have existed, with files, in
      // between (created and removed before this event was read).
      let affected = missingDirectories.filter { missing in
        directories.contains { missing.starts(with: $0.appending(name)) }
      }
      if !affected.isEmpty {
        lock.lock()
        pendingRescans.formUnion(affected)
        lock.unlock()
        refreshWatches()
        return
      }
    }
    // A file created empty is written next; its close or rename into place is what counts.
    let fileChanges = UInt32(IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE)
    guard !name.isEmpty, !isDirectory, mask & fileChanges != 0 else { return }
    let change: DirectoryEvent.EntryChange =
      mask & UInt32(IN_CLOSE_WRITE) != 0 ? .writtenInPlace : .replaced
    for directory in directories {
      deliver(.entryChanged(name, change), to: directory)
    }
  }

  /// A watched directory was removed, moved or unmounted: stop watching it, wait for it through
  /// its nearest existing ancestor, and have its handlers rescan (their files went with it).
  private func directoryWentAway(descriptor: Int32, mask: UInt32) {
    lock.lock()
    let paths = watchedPaths[descriptor] ?? []
    watchedPaths[descriptor] = nil
    for path in paths { watches[path] = nil }
    if mask & UInt32(IN_MOVE_SELF) != 0 {
      // The watch follows the moved directory; remove it properly, the path is free again.
      inotifytools_remove_watch_by_wd(descriptor)
    } else {
      // The kernel dropped the watch, and the library keeps its entry: watching the same path
      // again will need a fresh library state.
      stalePaths.formUnion(paths)
    }
    pendingRescans.formUnion(paths.filter { handlers[$0] != nil })
    lock.unlock()
    refreshWatches()
  }

  /// Brings the watches in line with what is wanted, then has the handlers of directories that
  /// started or stopped being watched rescan. Runs on the owner thread.
  private func refreshWatches() {
    lock.lock()
    let needsRebuild = applyRequestedRevision()
    lock.unlock()
    if needsRebuild {
      rebuild()
    } else {
      deliverPendingRescans()
    }
  }

  /// Tells the handlers of the directories in `pendingRescans` to rescan. Runs on the owner
  /// thread, without `lock`.
  private func deliverPendingRescans() {
    lock.lock()
    let directories = pendingRescans
    pendingRescans = []
    lock.unlock()
    for directory in directories {
      deliver(.rescan, to: directory)
    }
  }

  /// Calls the handlers of `directory`, or of every directory.
  private func deliver(_ event: DirectoryEvent, to directory: FilePath?) {
    lock.lock()
    let targets: [Handler] =
      if let directory {
        Array(handlers[directory]?.values ?? [:].values)
      } else {
        handlers.values.flatMap(\.values)
      }
    lock.unlock()
    for handler in targets {
      handler(event)
    }
  }

  /// Starts libinotifytools afresh and watches every wanted directory again. The events of the
  /// old instance are lost with it, so every handler rescans. Runs on the owner thread.
  private func rebuild() {
    inotifytools_cleanup()
    watchedPaths = [:]
    watches = [:]
    missingDirectories = []
    stalePaths = []
    pendingRescans = []
    if case let .failure(error) = initializeLibrary() {
      reportIssue("SharedState stopped watching files for changes: \(error)")
      // Without a working descriptor there is nothing to wait on; park the thread.
      while true { sleep(3600) }
    }
    lock.lock()
    _ = applyRequestedRevision()
    // Everything rescans below.
    pendingRescans = []
    lock.unlock()
    deliver(.rescan, to: nil)
  }

  /// Reconciles the watches with the latest registrations and tells the waiting registrars.
  /// Runs on the owner thread with `lock` held.
  ///
  /// - Returns: Whether a directory to watch has a stale entry in the library, so that the
  ///   caller must rebuild (after releasing `lock`).
  private func applyRequestedRevision() -> Bool {
    let needsRebuild = reconcileWatches()
    appliedRevision = requestedRevision
    lock.broadcast()
    return needsRebuild
  }

  /// Adds and removes inotify watches so that every wanted directory, or the nearest existing
  /// ancestor of a missing one, is watched. Runs on the owner thread with `lock` held.
  ///
  /// - Returns: Whether a wanted directory could not be added because the library holds a stale
  ///   entry for it.
  @discardableResult
  private func reconcileWatches() -> Bool {
    let watchedBefore = Set(handlers.keys.filter { watches[$0] != nil })
    defer {
      let watchedAfter = Set(handlers.keys.filter { watches[$0] != nil })
      pendingRescans.formUnion(watchedBefore.symmetricDifference(watchedAfter))
    }
    // Watch first, then look: a directory created between the look that chose an ancestor and
    // the watch on it raised no event, so look again until nothing new appeared meanwhile.
    while true {
      let wanted = reconcileOnce()
      guard let wanted else { return true }
      if wanted == wantedDirectories() { return false }
    }
  }

  /// The directories to watch now: the wanted ones that exist, and the nearest existing ancestor
  /// of each that does not.
  private func wantedDirectories() -> Set<FilePath> {
    Set(handlers.keys.map { $0.exists ? $0 : Self.nearestExistingAncestor(of: $0) })
  }

  /// One pass of ``reconcileWatches()``.
  ///
  /// - Returns: The directories it watched, or `nil` when one has a stale library entry.
  private func reconcileOnce() -> Set<FilePath>? {
    var wanted: Set<FilePath> = []
    missingDirectories = []
    failures = [:]
    for directory in handlers.keys {
      if directory.exists {
        wanted.insert(directory)
      } else {
        missingDirectories.insert(directory)
        wanted.insert(Self.nearestExistingAncestor(of: directory))
      }
    }
    for (path, descriptor) in watches where !wanted.contains(path) {
      watches[path] = nil
      watchedPaths[descriptor]?.remove(path)
      if watchedPaths[descriptor]?.isEmpty == true {
        watchedPaths[descriptor] = nil
        // The kernel already dropped the watch of a directory that is gone, and the library
        // prints an error when asked to remove it again; it keeps its entry then.
        if path.exists {
          inotifytools_remove_watch_by_wd(descriptor)
        } else {
          stalePaths.insert(path)
        }
      }
    }
    if wanted.contains(where: { watches[$0] == nil && stalePaths.contains($0) }) {
      return nil
    }
    for path in wanted where watches[path] == nil {
      guard inotifytools_watch_file(path.string, Int32(bitPattern: Self.directoryEvents)) != 0 else {
        let error = Errno(rawValue: inotifytools_error())
        if handlers[path] != nil { failures[path] = error }
        continue
      }
      // The library files directory watches under their path with a trailing slash.
      let descriptor = inotifytools_wd_from_filename(path.string + "/")
      watches[path] = descriptor
      watchedPaths[descriptor, default: []].insert(path)
    }
    publishedWatches = watches
    return wanted
  }

  /// The inotify watch descriptor that serves `directory`, if it is watched.
  func watchDescriptor(for directory: FilePath) -> Int32? {
    lock.lock()
    defer { lock.unlock() }
    return publishedWatches[directory]
  }

  private static func nearestExistingAncestor(of directory: FilePath) -> FilePath {
    var ancestor = directory
    while ancestor.removeLastComponent(), !ancestor.exists {}
    return ancestor
  }
}
