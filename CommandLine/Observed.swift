import Observation

/// Waiting for observable state to change, for the commands that follow what no change stream
/// reports (a shared value's load error).
public enum Observed {
  /// Waits until something `read` reads changes (or the task is cancelled).
  public static func nextChange(_ read: @escaping @Sendable () -> Void) async {
    let (changed, continuation) = AsyncStream<Void>.makeStream()
    withObservationTracking(read) { continuation.yield() }
    await withTaskCancellationHandler {
      for await _ in changed { break }
    } onCancel: {
      continuation.finish()
    }
  }

  /// Reads a value and starts tracking what the read touched, in one step, so that no change
  /// slips between them: `changes` yields once that changes. Wait for it with ``next(of:)``.
  public static func read<Value: Sendable>(
    _ read: @escaping @Sendable () -> Value
  ) -> (value: Value, changes: AsyncStream<Void>) {
    let (changes, continuation) = AsyncStream<Void>.makeStream()
    let value = withObservationTracking(read) { continuation.yield() }
    return (value, changes)
  }

  /// Waits for the change that `changes`, from ``read(_:)``, announces (or for cancellation).
  public static func next(of changes: AsyncStream<Void>) async {
    for await _ in changes { break }
  }
}
