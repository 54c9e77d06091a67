import Foundation
import SystemPackage

/// One handle's registration with the ``DirectoryWatcher``: it receives the events of one file
/// and delivers them, one at a time and coalesced, away from the watcher's owner thread.
///
/// `@unchecked Sendable`: the properties under "Pending" are only touched with `lock` held; the
/// others are constants.
final class FileWatchRegistration: @unchecked Sendable {
  /// The directory that holds the file.
  let directory: FilePath
  /// The file's name in `directory`.
  let name: String
  /// Tells the registration apart from others of the same file.
  let id: Int
  private let onEvent: @Sendable (FileWatchEvent) -> Void

  // MARK: Pending (guarded by `lock`)

  private let lock = NSLock()
  private var pendingFailure: WatchFailure?
  private var pendingChange: FileWatchEvent?
  private var isScheduled = false
  private var isCancelled = false

  init(directory: FilePath, name: String, id: Int, onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    self.directory = directory
    self.name = name
    self.id = id
    self.onEvent = onEvent
  }

  /// Queues `event` for delivery, merged with any event not delivered yet: ``FileWatchEvent/writtenInPlace``
  /// absorbs ``FileWatchEvent/replaced``, ``FileWatchEvent/resynchronize`` absorbs both, and an
  /// ``FileWatchEvent/unwatched(_:)`` is delivered before any change that follows it.
  ///
  /// Cheap and non-blocking: the watcher's owner thread calls it for every event it routes.
  func post(_ event: FileWatchEvent) {
    let mustSchedule = lock.withLock { () -> Bool in
      guard !isCancelled else { return false }
      switch event {
      case let .unwatched(failure):
        // Nothing can be read meaningfully until watching resumes, which a resynchronize says.
        pendingFailure = failure
        pendingChange = nil
      default:
        pendingChange = Self.merge(pendingChange, event)
      }
      defer { isScheduled = true }
      return !isScheduled
    }
    if mustSchedule {
      // Off the owner thread; at most one delivery of a registration is scheduled at a time,
      // so its events arrive one after the other.
      DeliveryThreads.shared.schedule(self)
    }
  }

  /// Stops deliveries; one under way may still finish.
  func cancel() {
    lock.withLock {
      isCancelled = true
      pendingFailure = nil
      pendingChange = nil
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

  /// Delivers what is pending until nothing is; ``DeliveryThreads`` calls it.
  func deliverPending() {
    while true {
      let (failure, change) = lock.withLock { () -> (WatchFailure?, FileWatchEvent?) in
        defer {
          pendingFailure = nil
          pendingChange = nil
        }
        if pendingFailure == nil && pendingChange == nil { isScheduled = false }
        return (pendingFailure, pendingChange)
      }
      guard failure != nil || change != nil else { return }
      if let failure { onEvent(.unwatched(failure)) }
      if let change { onEvent(change) }
    }
  }
}
