import ArgumentParser
import SharedStateCommandLine

/// `shared-state list-recursively`: prints every key of a suite with its value.
struct ListRecursively: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list-recursively",
    abstract: "Print each key of a suite that has a value, and the value: 'KEY VALUE', one a line, sorted by key.",
    usage: """
      shared-state list-recursively [--json] <suite>
      shared-state list-recursively --postgres <url> [--json] <namespace>
      """,
    discussion: """
      VALUE is compact JSON. A key with a space or a newline in it makes the lines ambiguous: \
      --json prints each as a JSON object instead, {"key":KEY,"value":VALUE}. A key whose \
      value cannot be read or decoded is reported on standard error, the others are still \
      printed, and the status is 1.
      """
  )

  @OptionGroup var options: ValueOptions

  @Flag(help: "Print each key and value as one JSON object a line.")
  var json = false

  @Argument(help: "The suite: a name, or a directory path with a '/' in it; with --postgres, the namespace.")
  var suite: String?

  func validate() throws {
    if options.file != nil { throw ValidationError("A file holds one value and has no keys: give a suite instead of --file.") }
    try options.validate(operands: [suite].compactMap { $0 }, needsKey: false)
  }

  func run() async throws {
    try await reportingFailure(as: "shared-state") {
      let place = try options.place(suite: suite, mustExist: true)
      var failures = 0
      for key in try options.keys(in: place) {
        do {
          // A key removed since the listing is left out.
          guard let value = try options.value(in: place, key: key).read() else { continue }
          Output.line(
            json
              ? JSONValue.object(["key": .string(key), "value": value]).compactJSON
              : "\(key) \(value.compactJSON)"
          )
        } catch let error as CommandError {
          Output.failure(error.description, program: "shared-state")
          failures += 1
        }
      }
      if failures > 0 {
        throw CommandError("\(failures) of the keys could not be read")
      }
    }
  }
}
