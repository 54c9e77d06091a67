/// The channel through which a key reports how a save went.
///
/// A key must resume a continuation exactly once. A continuation that is never resumed, or is
/// resumed a second time, is reported through IssueReporting. A second resumption is otherwise
/// ignored; a continuation dropped without being resumed resumes as ``resume()`` so that nothing
/// waits on it forever.
public struct SaveContinuation: Sendable {
  private let resumption: Resumption<Result<Void, any Error>>

  /// Creates a continuation that passes the outcome to `callback`.
  ///
  /// The reference layer creates continuations; create one yourself to test a custom key.
  ///
  /// - Parameters:
  ///   - description: What is being saved, for the messages about misuse.
  ///   - callback: Receives success or the error that stopped the save.
  public init(
    _ description: String = "",
    callback: @escaping @Sendable (Result<Void, any Error>) -> Void
  ) {
    self.init(describing: description, callback: callback)
  }

  /// A continuation whose messages name `subject` (a key, say), described only when a message
  /// needs it.
  init(describing subject: any Sendable, callback: @escaping @Sendable (Result<Void, any Error>) -> Void) {
    resumption = Resumption(
      kind: "save continuation",
      describing: subject,
      leakedOutcome: { .success(()) },
      callback: callback
    )
  }

  /// Resumes saying the value was saved.
  public func resume() {
    resume(with: .success(()))
  }

  /// Resumes with the error that stopped the save; it becomes the value's ``Shared/saveError``.
  public func resume(throwing error: any Error) {
    resume(with: .failure(error))
  }

  /// Resumes with a result.
  public func resume(with result: Result<Void, any Error>) {
    resumption.resume(with: result)
  }
}
