import Synchronization

/// The projection a `Shared` or `SharedReader` reads and writes through, held by reference so
/// that assigning a new one to `$x` re-points every copy of `$x` taken earlier (as
/// swift-sharing does), while views derived from it (`$x.name`, `$x.read { … }`) keep the state
/// they were derived from.
final class ProjectionBox<Projection: Sendable>: Sendable {
  private let projection: Mutex<Projection>
  /// Told after each re-pointing: publishers follow the box to its new state.
  private let repointListeners = Mutex<(next: Int, listeners: [Int: @Sendable () -> Void])>(
    (0, [:])
  )

  init(_ projection: Projection) {
    self.projection = Mutex(projection)
  }

  var current: Projection {
    projection.withLock { $0 }
  }

  func repoint(to newProjection: Projection) {
    projection.withLock { $0 = newProjection }
    let listeners = repointListeners.withLock { Array($0.listeners.values) }
    for listener in listeners { listener() }
  }

  /// Calls `onRepoint` after each re-pointing until the returned subscription is cancelled.
  func onRepoint(_ onRepoint: @escaping @Sendable () -> Void) -> SharedSubscription {
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
