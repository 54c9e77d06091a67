import Observation

/// Waiting for observable state to change, for the commands that follow what no change stream
/// reports (a shared value's load error).
enum Observed {
  /// Waits until something `read` reads changes (or the task is cancelled).
  static func nextChange(_ read: @escaping @Sendable () -> Void) async {
    let (changed, continuation) = AsyncStream<Void>.makeStream()
    withObservationTracking(read) { continuation.yield() }
    await withTaskCancellationHandler {
      for await _ in changed { break }
    } onCancel: {
      continuation.finish()
    }
  }
}
