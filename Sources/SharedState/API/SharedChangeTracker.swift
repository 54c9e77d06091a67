import Dependencies
import Foundation
import IssueReporting
import Synchronization

/// Records the changes made to shared state while it tracks, so that a test can assert them
/// afterwards: the Composable Architecture's test store uses it.
///
/// While ``track(_:)-(()->R)`` runs, the first change to each piece of shared state records the
/// value it had before (a snapshot). While ``assert(_:)`` runs, shared state reads as its
/// snapshot, `withLock` changes the snapshot (never the state, nor anyone observing it), and
/// `==` between two `Shared`s compares the left one's snapshot with the right one's current
/// value and marks the left one asserted. Changes still unasserted when the tracker goes away
/// are reported through IssueReporting.
///
/// Outside tests this costs one atomic load per read and write of shared state while no tracker
/// exists at all.
@_spi(SharedChangeTracking)
public struct SharedChangeTracker: Hashable, Sendable {
  let changes: TrackedChanges

  /// Whether any change was tracked and not yet reset.
  public var hasChanges: Bool { changes.hasChanges }

  /// Creates a tracker.
  ///
  /// - Parameter reportUnassertedChanges: Whether changes left unasserted are reported when the
  ///   tracker goes away; by default, when running under a test.
  public init(reportUnassertedChanges: Bool = isTesting) {
    changes = TrackedChanges(reportsUnasserted: reportUnassertedChanges)
  }

  /// Tracks the changes made by code that runs with `dependencies`.
  public func track(_ dependencies: inout DependencyValues) {
    dependencies[TrackingChangeTrackers.self].insert(self)
  }

  /// Tracks the changes `body` makes.
  public func track<R>(_ body: () throws -> R) rethrows -> R {
    try withDependencies {
      $0[TrackingChangeTrackers.self].insert(self)
    } operation: {
      try body()
    }
  }

  /// Runs `body` with shared state reading as the snapshots this tracker took: see the type.
  public func assert<R>(_ body: () throws -> R) rethrows -> R {
    try withDependencies {
      $0[AssertingChangeTracker.self] = self
    } operation: {
      try body()
    }
  }

  /// Forgets every change tracked so far.
  public func reset() {
    changes.reset()
  }

  /// Whether the two are the same tracker.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.changes === rhs.changes
  }

  /// Hashes the tracker's identity.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(changes))
  }
}

/// The snapshots of one tracker, by root reference.
final class TrackedChanges: Sendable {
  /// `@unchecked Sendable`: `snapshot` holds a copy of a shared value, which the library hands
  /// between threads by design (as the reference does with the value itself); an entry only
  /// lives in `entries`' `Mutex`, and leaves it as a copy.
  struct Entry: @unchecked Sendable {
    /// Held strongly, so that the report can name the state and its value now.
    let root: any RootReference
    var snapshot: Any
    var isUnasserted = true
  }

  /// How many trackers exist in the process: while none does, shared state skips every look-up.
  static let liveCount = Atomic<Int>(0)

  private let entries = Mutex<[ObjectIdentifier: Entry]>([:])
  private let reportsUnasserted: Bool

  init(reportsUnasserted: Bool) {
    self.reportsUnasserted = reportsUnasserted
    Self.liveCount.add(1, ordering: .relaxed)
  }

  deinit {
    Self.liveCount.subtract(1, ordering: .relaxed)
    guard reportsUnasserted else { return }
    let unasserted = entries.withLock { $0.values.filter(\.isUnasserted) }
    for entry in unasserted {
      reportIssue(
        """
        Tracked unasserted changes to '\(entry.root.trackedDescription)': \
        \(String(reflecting: entry.snapshot)) → \(String(reflecting: entry.root.anyValue))
        """
      )
    }
  }

  var hasChanges: Bool { entries.withLock { !$0.isEmpty } }

  func snapshot(of root: any RootReference) -> Any? {
    entries.withLock { $0[ObjectIdentifier(root)]?.snapshot }
  }

  /// Records `root`'s value before its first change.
  ///
  /// The value is read outside this tracker's lock, and `update` below runs outside it: either
  /// may read shared state (this tracker's snapshots included) or take a reference's lock.
  func recordBeforeChange(of root: any RootReference) {
    let id = ObjectIdentifier(root)
    guard entries.withLock({ $0[id] == nil }) else { return }
    let entry = Entry(root: root, snapshot: root.anyValue)
    entries.withLock { entries in
      if entries[id] == nil { entries[id] = entry }
    }
  }

  /// Changes `root`'s snapshot (taken now when there is none) through `update`.
  ///
  /// `update` runs outside the lock (it may read shared state, which may record here): asserting
  /// is meant for one thread at a time, as a test store does it; two threads changing the same
  /// snapshot at once may lose one change.
  func updateSnapshot<R>(of root: any RootReference, _ update: (inout Any) throws -> R) rethrows -> R {
    let id = ObjectIdentifier(root)
    var snapshot = entries.withLock { $0[id]?.snapshot } ?? root.anyValue
    let result = try update(&snapshot)
    let entry = Entry(root: root, snapshot: snapshot, isUnasserted: false)
    entries.withLock { entries in
      if entries[id] == nil {
        entries[id] = entry
      } else {
        entries[id]?.snapshot = entry.snapshot
      }
    }
    return result
  }

  /// Marks `root`'s change as asserted; `false` when nothing was tracked for it.
  func markAsserted(_ root: any RootReference) -> Bool {
    entries.withLock { entries in
      guard entries[ObjectIdentifier(root)] != nil else { return false }
      entries[ObjectIdentifier(root)]?.isUnasserted = false
      return true
    }
  }

  func reset() {
    entries.withLock { $0.removeAll() }
  }
}

/// Where shared state asks whether a tracker is at work, and lets it.
enum ChangeTracking {
  /// The tracker asserting in this context, if any tracker exists at all.
  static var asserting: TrackedChanges? {
    guard TrackedChanges.liveCount.load(ordering: .relaxed) > 0 else { return nil }
    @Dependency(AssertingChangeTracker.self) var tracker
    return tracker?.changes
  }

  /// The trackers tracking in this context, if any tracker exists at all.
  static var tracking: [TrackedChanges] {
    guard TrackedChanges.liveCount.load(ordering: .relaxed) > 0 else { return [] }
    @Dependency(TrackingChangeTrackers.self) var trackers
    return trackers.map(\.changes)
  }

  /// The value `projection` shows while a tracker asserts, or `nil` when none does.
  static func assertedValue<Value>(of projection: some ValueProjection<Value>) -> Value? {
    guard let asserting, let snapshot = asserting.snapshot(of: projection.root) else { return nil }
    return projection.value(inRoot: snapshot)
  }

  /// Runs a `withLock` body: on the snapshot while a tracker asserts, on the state otherwise
  /// (recording the value before the change for each tracker that tracks).
  static func withLock<Value, R>(
    _ projection: some MutableValueProjection<Value>,
    _ body: (inout Value) throws -> R
  ) rethrows -> R {
    guard TrackedChanges.liveCount.load(ordering: .relaxed) > 0 else {
      return try projection.withLock(body)
    }
    if let asserting {
      return try asserting.updateSnapshot(of: projection.root) { snapshot in
        try projection.update(inRoot: &snapshot, body)
      }
    }
    for tracker in tracking { tracker.recordBeforeChange(of: projection.root) }
    return try projection.withLock(body)
  }

  /// `==` of two shared values while a tracker asserts: the left one's snapshot against the
  /// right one's state, and the left one's change counts as asserted. `nil` otherwise.
  static func assertedEquality<Value: Equatable>(
    _ lhs: some ValueProjection<Value>,
    _ rhs: some ValueProjection<Value>
  ) -> Bool? {
    guard let asserting, let snapshot = asserting.snapshot(of: lhs.root) else { return nil }
    _ = asserting.markAsserted(lhs.root)
    return lhs.value(inRoot: snapshot) == rhs.value
  }
}

private enum AssertingChangeTracker: DependencyKey {
  static let liveValue: SharedChangeTracker? = nil
  static let testValue: SharedChangeTracker? = nil
}

private enum TrackingChangeTrackers: DependencyKey {
  static let liveValue: Set<SharedChangeTracker> = []
  static let testValue: Set<SharedChangeTracker> = []
}
