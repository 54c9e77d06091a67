import Synchronization

/// The projection a `Shared` or `SharedReader` reads and writes through, held by reference so
/// that assigning a new one to `$x` re-points every copy of `$x` taken earlier (as
/// swift-sharing does), while views derived from it (`$x.name`, `$x.read { … }`) keep the state
/// they were derived from.
final class ProjectionBox<Projection: Sendable>: Sendable {
  private let projection: Mutex<Projection>

  init(_ projection: Projection) {
    self.projection = Mutex(projection)
  }

  var current: Projection {
    projection.withLock { $0 }
  }

  func repoint(to newProjection: Projection) {
    projection.withLock { $0 = newProjection }
  }
}
