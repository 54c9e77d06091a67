import ArgumentParser
import SharedStateCommandLine

/// `shared-state get`: prints a stored value.
struct Get: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the value stored under a key, as one line of compact JSON.",
    usage: """
      shared-state get <suite> <key>
      shared-state get --postgres <url> <namespace> <key>
      shared-state get --file <path>
      """,
    discussion: """
      Exits with status 3, printing nothing on standard output, when no value is stored \
      under the key (nothing was set, or it was reset): programs then read their default. \
      A stored JSON null prints as null. Reading writes nothing.
      """
  )

  @OptionGroup var location: KeyOperands

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let value = try location.value(mustExist: true)
      guard let json = try value.read() else {
        throw CommandError("\(value) has no value", status: .noValue)
      }
      Output.line(json.compactJSON)
    }
  }
}
