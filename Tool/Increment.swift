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

  @OptionGroup var options: ValueOptions

  @Option(help: "How much to add (negative to subtract).")
  var by = 1

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  @Argument(help: "The key.")
  var key: String?

  func validate() throws { try options.validate(operands: [suite, key].compactMap { $0 }) }

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let value = try options.value([suite, key].compactMap { $0 }, mustExist: false)
      let sum = try value.add(by, to: try value.openInteger())
      Output.line(String(sum))
    }
  }
}
