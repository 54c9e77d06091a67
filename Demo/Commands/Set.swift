import ArgumentParser
import SharedState

/// `shared-demo set`: stores a JSON value.
struct Set: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Store a JSON value (any JSON value).")

  @OptionGroup var storage: StorageOptions

  @Argument(help: "The value, as JSON: 42, \"text\", [1,2], {\"a\":true}, null.")
  var json: String

  func run() async throws {
    try await reportingFailure {
      let value = try JSONValue(parsing: json)
      // Open the value whatever the file holds now: a set replaces it.
      let shared = Shared<JSONValue>(wrappedValue: .null, storage.jsonKey())
      shared.withLock { $0 = value }
      if let error = shared.saveError {
        throw DemoError(String(describing: error))
      }
    }
  }
}
