import ArgumentParser
import SharedStateCommandLine

/// `shared-demo set`: stores a JSON value.
struct Set: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Store a JSON value (any JSON value).")

  @OptionGroup var storage: StorageOptions

  @Argument(help: "The value, as JSON: 42, \"text\", [1,2], {\"a\":true}, null.")
  var json: String

  func run() async throws {
    try await reportingFailure {
      try storage.value.set(try JSONValue(parsing: json))
    }
  }
}
