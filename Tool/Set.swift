import ArgumentParser
import SharedStateCommandLine

/// `shared-state set`: stores a JSON value.
struct Set: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Store a JSON value under a key.",
    usage: """
      shared-state set <suite> <key> <value>
      shared-state set --postgres <url> <namespace> <key> <value>
      shared-state set --file <path> <value>
      """,
    discussion: """
      VALUE is any JSON value: 42, 1.5, true, null, '"text"' (a string needs its quotes, \
      so quote it for the shell), '[1,2]', '{"a":1}'. A negative number follows '--': \
      shared-state set app volume -- -3. The value replaces what is stored, atomically for \
      every process; programs watching the key see it at once. A suite's directory is created \
      when missing. JSON that does not parse is an error, and nothing is written.
      """
  )

  @OptionGroup var options: ValueOptions

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  @Argument(help: "The key.")
  var key: String?

  @Argument(help: "The value, as JSON (with --file, the only argument).")
  var value: String?

  /// SUITE KEY VALUE, or VALUE alone with `--file`, whichever positions argument-parser put
  /// them in.
  private var operands: [String] { [suite, key, value].compactMap { $0 } }

  func validate() throws { try options.validate(operands: operands, extra: ["VALUE"]) }

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      guard let text = operands.last else { return }
      // Parsed before anything is opened: bad JSON writes nothing.
      let json = try JSONValue(parsing: text)
      try options.value(Array(operands.dropLast()), mustExist: false).set(json)
    }
  }
}
