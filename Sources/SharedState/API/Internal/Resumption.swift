import ConcurrencyExtras
import IssueReporting

/// The one-shot state behind ``LoadContinuation`` and ``SaveContinuation``: passes the first
/// result on, and reports a second resumption or none at all.
final class Resumption<Outcome>: Sendable {
  private let kind: String
  private let description: String
  private let callback: LockIsolated<(@Sendable (Outcome) -> Void)?>

  init(kind: String, description: String, callback: @escaping @Sendable (Outcome) -> Void) {
    self.kind = kind
    self.description = description
    self.callback = LockIsolated(callback)
  }

  func resume(with outcome: Outcome) {
    let callback = self.callback.withValue { callback -> (@Sendable (Outcome) -> Void)? in
      defer { callback = nil }
      return callback
    }
    guard let callback else {
      reportIssue("The \(kind) for \(description) was resumed more than once.")
      return
    }
    callback(outcome)
  }

  deinit {
    if callback.value != nil {
      reportIssue("The \(kind) for \(description) was never resumed.")
    }
  }
}
