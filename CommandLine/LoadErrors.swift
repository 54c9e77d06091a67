import SharedState

/// Following a watched value's load errors, for the commands that print changes as they
/// happen (`shared-state monitor`, `shared-demo watch`).
public enum LoadErrors {
  /// Reports each new load error of `shared` (the value `value` names) as one sentence through
  /// `report`, and returns when the value cannot be watched (inotify's limits reached, say),
  /// with the reason; with `keepGoing`, that too is only reported, and watching resumes by
  /// itself when it can. Returns `nil` when the task is cancelled.
  public static func follow<Value: Sendable>(
    _ shared: Shared<Value>,
    of value: StoredValue,
    keepGoing: Bool = false,
    report: (String) -> Void
  ) async -> String? {
    var reported: String?
    while !Task.isCancelled {
      // Read and track in one step: an error set in between would otherwise go unseen.
      let (error, changes) = Observed.read { shared.loadError }
      if !keepGoing, let error = error as? FileStorageError, error.reason == .unwatched {
        return String(describing: error.underlying)
      }
      let message = error.map(value.sentence(for:))
      if let message, message != reported {
        report(message)
      }
      reported = message
      await Observed.next(of: changes)
    }
    return nil
  }
}
