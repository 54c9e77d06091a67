import Synchronization

/// The projection a `Shared` or `SharedReader` reads and writes through, held by reference so
/// that assigning a new one to `$x` re-points every copy of `$x` taken earlier (as
/// swift-sharing does), while views derived from it (`$x.name`, `$x.read { … }`) keep the state
/// they were derived from.
final class ProjectionBox<Projection: Sendable>: Sendable {
  /// The projection the box was made with, kept for as long as the box lives, even once it is
  /// re-pointed: until then, reads and writes go through it without copying it out of the box.
  /// (A copy is a retain and a release of the reference, which, being held weakly by the
  /// registry, counts them in a side table: 3 % of the CPU time of an increment went there.)
  private let first: Projection
  /// Whether the box was ever re-pointed: from then on, `projection` is the one to use.
  private let isRepointed = Atomic<Bool>(false)
  /// Guards `projection`. A lock of no generic type: a `Mutex<Projection>` would be a generic
  /// type looked up at run time on every read through the box.
  private let lock = Mutex(())
  /// Read and written only while `lock` is held; each access a copy or an assignment, never
  /// overlapping another (hence unchecked exclusivity: checked, every read looks up the
  /// thread's access set).
  @exclusivity(unchecked) private nonisolated(unsafe) var projection: Projection
  /// Told after each re-pointing, and whether to announce the new state's current value:
  /// publishers follow the box to its new state.
  private let repointListeners = Mutex<(next: Int, listeners: [Int: @Sendable (Bool) -> Void])>(
    (0, [:])
  )

  init(_ projection: Projection) {
    first = projection
    self.projection = projection
  }

  /// The projection now, copied out of the box.
  var current: Projection {
    withCurrent { $0 }
  }

  /// Calls `body` with the projection now: for a box never re-pointed, the one it keeps, not a
  /// copy. `body` may run the program's code (a `withLock` closure): no lock is held meanwhile.
  func withCurrent<R>(_ body: (Projection) throws -> R) rethrows -> R {
    guard isRepointed.load(ordering: .acquiring) else { return try body(first) }
    return try body(lock.withLock { _ in projection })
  }

  /// Points the box at `newProjection`.
  ///
  /// - Parameter announcesCurrentValue: Whether publishers following the box send the new
  ///   state's current value. `false` when that value is only the old one carried over (a
  ///   `load(_:)` of a key that has no state in the process yet): as in swift-sharing, they
  ///   then send only what the load brings.
  func repoint(to newProjection: Projection, announcesCurrentValue: Bool = true) {
    lock.withLock { _ in projection = newProjection }
    isRepointed.store(true, ordering: .releasing)
    let listeners = repointListeners.withLock { Array($0.listeners.values) }
    for listener in listeners { listener(announcesCurrentValue) }
  }

  /// Calls `onRepoint` after each re-pointing until the returned subscription is cancelled.
  func onRepoint(_ onRepoint: @escaping @Sendable (Bool) -> Void) -> SharedSubscription {
    let id = repointListeners.withLock { state in
      defer { state.next += 1 }
      state.listeners[state.next] = onRepoint
      return state.next
    }
    return SharedSubscription { [self] in
      _ = repointListeners.withLock { $0.listeners.removeValue(forKey: id) }
    }
  }
}
