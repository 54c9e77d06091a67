import Synchronization
import SystemPackage

/// One handle's registration with the ``DirectoryWatcher``: it receives the events of one file
/// and delivers them, one at a time and coalesced, on the thread that read them once it has
/// done reading (see ``DeliveryThreads``), or on a thread of that type's pool.
///
final class FileWatchRegistration: Sendable {
  /// The watcher it is registered with.
  let watcher: DirectoryWatcher
  /// The directory that holds the file.
  let directory: FilePath
  /// The file's name in `directory`.
  let name: String
  /// Whether an event read for the file is worth delivering (see
  /// ``DirectoryWatcher/watch(file:admitting:onEvent:)``); `nil`: every event is.
  let admits: (@Sendable (FileWatchEvent) -> Bool)?
  private let onEvent: @Sendable (FileWatchEvent) -> Void

  /// What waits to be delivered. A `Mutex` keeps it inline: a process may hold 10 000
  /// registrations.
  private let pending = Mutex(Pending())

  private struct Pending {
    var failure: WatchFailure?
    var change: FileWatchEvent?
    var isScheduled = false
    var isCancelled = false

    /// Whether nothing waits to be delivered.
    var isEmpty: Bool { failure == nil && change == nil }
  }

  init(
    watcher: DirectoryWatcher,
    directory: FilePath,
    name: String,
    admits: (@Sendable (FileWatchEvent) -> Bool)?,
    onEvent: @escaping @Sendable (FileWatchEvent) -> Void
  ) {
    self.watcher = watcher
    self.admits = admits
    self.directory = directory
    self.name = name
    self.onEvent = onEvent
  }

  /// Queues `event` for delivery, merged with any event not delivered yet: ``FileWatchEvent/writtenInPlace``
  /// absorbs ``FileWatchEvent/replaced``, ``FileWatchEvent/resynchronize`` absorbs both, and an
  /// ``FileWatchEvent/unwatched(_:)`` is delivered before any change that follows it.
  ///
  /// Cheap and non-blocking; for events that do not come from the reader (a resynchronize, a
  /// watch that failed), whose delivery goes to the pool.
  func post(_ event: FileWatchEvent) {
    if enqueue(event) {
      // On the pool; at most one delivery of a registration is scheduled at a time,
      // so its events arrive one after the other.
      DeliveryThreads.shared.schedule(self)
    }
  }

  /// Queues `event` read by the reader unless `admits` turns it down, and leaves the delivery to
  /// the caller as ``enqueue(_:)`` does.
  ///
  /// While a delivery is scheduled, `admits` is not asked: that delivery runs the handle, which
  /// judges the file as it is then, after this event (two of every write's events name the
  /// file, and a burst brings many).
  func offer(_ event: FileWatchEvent) -> Bool {
    if let admits, !pending.withLock({ $0.isScheduled }), !admits(event) { return false }
    return enqueue(event)
  }

  /// Queues `event` as ``post(_:)`` does, but leaves the delivery to the caller: when it returns
  /// `true`, the caller must call ``deliverPending()`` (on a thread that may block for as long
  /// as the handle takes), and nobody else will until it has.
  func enqueue(_ event: FileWatchEvent) -> Bool {
    pending.withLock { pending -> Bool in
      guard !pending.isCancelled else { return false }
      switch event {
      case let .unwatched(failure):
        // Nothing can be read meaningfully until watching resumes, which a resynchronize says.
        pending.failure = failure
        pending.change = nil
      default:
        pending.change = Self.merge(pending.change, event)
      }
      defer { pending.isScheduled = true }
      return !pending.isScheduled
    }
  }

  /// Stops deliveries; one under way may still finish.
  func cancel() {
    pending.withLock { pending in
      pending.isCancelled = true
      pending.failure = nil
      pending.change = nil
    }
  }

  /// The event that stands for `pending` followed by `next`.
  static func merge(_ pending: FileWatchEvent?, _ next: FileWatchEvent) -> FileWatchEvent {
    func rank(_ event: FileWatchEvent?) -> Int {
      switch event {
      case nil: 0
      case .replaced: 1
      case .writtenInPlace: 2
      case .resynchronize, .unwatched: 3
      }
    }
    return rank(next) >= rank(pending) ? next : pending ?? next
  }

  /// Delivers what is pending until nothing is; ``DeliveryThreads`` calls it, or the caller of
  /// an ``enqueue(_:)`` that returned `true`.
  func deliverPending() {
    while deliverNext() {}
  }

  /// As ``deliverPending()``, for a thread with work of its own (a writer that has just let go
  /// of its lock): it delivers what is pending once, and leaves what arrived meanwhile to the
  /// pool, so that changes made elsewhere without pause cannot keep it delivering.
  func deliverPendingOnce() {
    guard deliverNext(), hasPending() else { return }
    DeliveryThreads.shared.schedule(self)
  }

  /// Delivers what is pending; `false` when nothing was (the delivery is then over).
  private func deliverNext() -> Bool {
    let (failure, change) = pending.withLock { pending -> (WatchFailure?, FileWatchEvent?) in
      defer {
        pending.failure = nil
        pending.change = nil
      }
      if pending.isEmpty { pending.isScheduled = false }
      return (pending.failure, pending.change)
    }
    guard failure != nil || change != nil else { return false }
    if let failure { onEvent(.unwatched(failure)) }
    if let change { onEvent(change) }
    return true
  }

  /// Whether anything is pending; when nothing is, the delivery is over.
  private func hasPending() -> Bool {
    pending.withLock { pending in
      if pending.isEmpty { pending.isScheduled = false }
      return !pending.isEmpty
    }
  }
}
