import ArgumentParser
import SharedStateCommandLine

/// `shared-state reset`: removes a stored value, so that programs read their default.
struct Reset: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Remove the value stored under a key, so that programs read their default.",
    usage: """
      shared-state reset <suite> <key>
      shared-state reset --postgres <url> <namespace> <key>
      shared-state reset --file <path>
      """,
    discussion: """
      A suite's key file is removed under the key's lock, as the library removes it; with \
      --file the file is removed, as rm does; in PostgreSQL the key's row loses its value. \
      Programs watching the key see their default at once. Resetting a key that has no value \
      does nothing.
      """
  )

  @OptionGroup var location: KeyOperands

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      try location.value(mustExist: true).reset()
    }
  }
}
