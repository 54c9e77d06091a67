import ArgumentParser
import SharedStateCommandLine

/// `shared-state increment`: adds to a stored integer, atomically across processes.
struct Increment: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add to the integer stored under a key (0 when there is none) and print the sum.",
    usage: """
      shared-state increment [--by <n>] <suite> <key>
      shared-state increment --postgres <url> [--by <n>] <namespace> <key>
      shared-state increment --file <path> [--by <n>]
      """,
    discussion: """
      The read and the write are one withLock: increments made by any number of processes at \
      once all count. A value that is not an integer, or a sum beyond 64 bits, is an error, \
      and nothing is written.
      """
  )

  @Option(help: "How much to add (negative to subtract).")
  var by = 1

  @OptionGroup var location: KeyOperands

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let value = try location.value(mustExist: false)
      let sum = try value.add(by, to: try value.openInteger())
      Output.line(String(sum))
    }
  }
}
