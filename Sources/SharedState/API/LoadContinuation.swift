/// The channel through which a key hands back the value it loaded.
///
/// A key must resume a continuation exactly once. A continuation that is never resumed, or is
/// resumed a second time, is reported through IssueReporting (a test failure under test, a
/// runtime warning otherwise). A second resumption is otherwise ignored; a continuation dropped
/// without being resumed resumes as ``resumeReturningInitialValue()`` so that nothing waits
/// on it forever.
public struct LoadContinuation<Value>: Sendable {
  private let resumption: Resumption<Result<Value?, any Error>>

  /// Creates a continuation that passes the outcome to `callback`.
  ///
  /// The reference layer creates continuations; create one yourself to test a custom key.
  ///
  /// - Parameters:
  ///   - description: What is being loaded, for the messages about misuse.
  ///   - callback: Receives the loaded value, `nil` to keep the initial value, or an error.
  public init(
    _ description: String = "",
    callback: @escaping @Sendable (Result<Value?, any Error>) -> Void
  ) {
    self.init(describing: description, callback: callback)
  }

  /// A continuation whose messages name `subject` (a key, say), described only when a message
  /// needs it.
  init(describing subject: any Sendable, callback: @escaping @Sendable (Result<Value?, any Error>) -> Void) {
    resumption = Resumption(
      kind: "load continuation",
      describing: subject,
      leakedOutcome: { .success(nil) },
      callback: callback
    )
  }

  /// Resumes with a loaded value.
  public func resume(returning value: Value) {
    resume(with: .success(value))
  }

  /// Resumes with an error: the shared value keeps what it had and reports the error as its
  /// ``Shared/loadError``.
  public func resume(throwing error: any Error) {
    resume(with: .failure(error))
  }

  /// Resumes saying nothing is stored, so that the use site's default value stays.
  public func resumeReturningInitialValue() {
    resume(with: .success(nil))
  }

  /// Resumes with a result: a value, `nil` for the initial value, or an error.
  public func resume(with result: Result<Value?, any Error>) {
    resumption.resume(with: result)
  }
}
