import IssueReporting
import Synchronization

/// The one-shot state behind ``LoadContinuation`` and ``SaveContinuation``: passes the first
/// result on, and reports a second resumption or none at all.
///
/// A continuation that is dropped without being resumed is reported and then resumed with
/// `leakedOutcome`, so that nothing waiting on it (a `load()`, a `save()`, `isLoading`) waits
/// forever for a key that forgot to call it.
final class Resumption<Outcome>: Sendable {
  private let kind: String
  /// What is being loaded or saved: a description, or the key itself, described only when a
  /// message needs it (describing a key costs more than opening it does otherwise).
  private let described: any Sendable
  private let callback: Mutex<(@Sendable (Outcome) -> Void)?>
  private let leakedOutcome: @Sendable () -> Outcome

  init(
    kind: String,
    describing described: any Sendable,
    leakedOutcome: @escaping @Sendable () -> Outcome,
    callback: @escaping @Sendable (Outcome) -> Void
  ) {
    self.kind = kind
    self.described = described
    self.leakedOutcome = leakedOutcome
    self.callback = Mutex(callback)
  }

  /// The key as the messages name it: quoted, or "A shared key" when it has no description.
  private var subject: String {
    let description = described as? String ?? String(describing: described)
    return description.isEmpty ? "A shared key" : "'\(description)'"
  }

  func resume(with outcome: Outcome) {
    let callback = self.callback.withLock { callback -> (@Sendable (Outcome) -> Void)? in
      defer { callback = nil }
      return callback
    }
    guard let callback else {
      reportIssue("The \(kind) of \(subject) was resumed more than once.")
      return
    }
    callback(outcome)
  }

  deinit {
    guard let callback = callback.withLock({ $0 }) else { return }
    // The wording is swift-sharing's, so that code which matches the report keeps working.
    reportIssue(
      """
      \(subject) leaked its continuation without one of its resume methods being invoked. \
      This will cause tasks waiting on it to resume immediately.
      """
    )
    callback(leakedOutcome())
  }
}
