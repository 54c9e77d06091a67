import ArgumentParser
import SharedStateCommandLine

/// `shared-state list-keys`: lists the keys that have a value.
struct ListKeys: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list-keys",
    abstract: "Print the keys of a suite that have a value, sorted, one a line.",
    usage: """
      shared-state list-keys [--null | --json] <suite>
      shared-state list-keys --postgres <url> [--null | --json] <namespace>
      """,
    discussion: """
      A key that holds a newline makes one line per key ambiguous: --null ends each key with \
      a NUL byte instead (for xargs -0), and --json prints each key as a JSON string.
      """
  )

  @OptionGroup var options: ValueOptions

  @Flag(help: "End each key with a NUL byte instead of a newline.")
  var null = false

  @Flag(help: "Print each key as a JSON string, one a line.")
  var json = false

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  func validate() throws {
    if null && json { throw ValidationError("--null and --json cannot be used together.") }
    if options.file != nil { throw ValidationError("A file holds one value and has no keys: give a suite instead of --file.") }
    try options.validate(operands: [suite].compactMap { $0 }, needsKey: false)
  }

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let keys = try options.keys(in: try options.place(suite: suite, mustExist: true))
      KeyList.print(keys, as: null ? .null : json ? .json : .lines)
    }
  }
}
