import Synchronization

/// The projection a `Shared` or `SharedReader` reads and writes through, held by reference so
/// that assigning a new one to `$x` re-points every copy of `$x` taken earlier (as
/// swift-sharing does), while views derived from it (`$x.name`, `$x.read { … }`) keep the state
/// they were derived from.
final class ProjectionBox<Projection: Sendable>: Sendable {
  /// Guards `projection`. A lock of no generic type: a `Mutex<Projection>` would be a generic
  /// type looked up at run time on every read through the box (every `withLock`, every read of a
  /// property).
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
    self.projection = projection
  }

  var current: Projection {
    lock.withLock { _ in projection }
  }

  /// Points the box at `newProjection`.
  ///
  /// - Parameter announcesCurrentValue: Whether publishers following the box send the new
  ///   state's current value. `false` when that value is only the old one carried over (a
  ///   `load(_:)` of a key that has no state in the process yet): as in swift-sharing, they
  ///   then send only what the load brings.
  func repoint(to newProjection: Projection, announcesCurrentValue: Bool = true) {
    lock.withLock { _ in projection = newProjection }
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
