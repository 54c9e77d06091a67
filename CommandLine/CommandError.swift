/// A failure a command reports as one sentence on standard error.
///
/// The exit status says what kind of failure it was: see ``CommandExitStatus``.
public struct CommandError: Error, CustomStringConvertible {
  /// The sentence, with or without its final full stop.
  public let description: String
  /// The status the program exits with.
  public let status: CommandExitStatus

  /// A failure described by `description`, exiting with `status` (1 by default).
  public init(_ description: String, status: CommandExitStatus = .failure) {
    self.description = description
    self.status = status
  }
}
