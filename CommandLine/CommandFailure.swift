import ArgumentParser

extension ParsableCommand {
  /// Runs `body`, turning a ``CommandError`` into one sentence on standard error, as
  /// `PROGRAM: SENTENCE.`, and the error's exit status.
  public func reportingFailure(as program: String, _ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch let error as CommandError {
      Output.failure(error.description, program: program)
      throw error.status.exitCode
    }
  }
}
