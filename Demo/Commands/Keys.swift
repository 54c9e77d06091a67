import ArgumentParser
import Foundation
import SharedState
import SharedStateCommandLine
import SharedStatePostgres

/// `shared-demo keys`: lists the keys of an app-storage suite.
struct Keys: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the keys that have a value in an app-storage suite, sorted.",
    discussion: """
      By default each key is printed on its own line, which is ambiguous for a key that holds a \
      newline. --null ends each key with a NUL byte instead (for 'xargs -0'); --json prints each \
      key as a JSON string on its own line (JSON lines), with newlines escaped.
      """
  )

  @Flag(help: "End each key with a NUL byte instead of a newline.")
  var null = false

  @Flag(help: "Print each key as a JSON string, one per line.")
  var json = false

  @Option(help: "The app-storage suite directory.")
  var suite: String?

  @OptionGroup var postgres: PostgresOptions

  func validate() throws {
    if null && json { throw ValidationError("--null and --json cannot be used together.") }
    guard (suite == nil) != (postgres.url == nil) else {
      throw ValidationError("Give either --suite DIR or --postgres URL.")
    }
  }

  func run() async throws {
    try await reportingFailure {
      let keys: [String]
      if let store = postgres.store {
        keys = try KeyList.keys(of: store)
      } else {
        guard let suite else { return }
        keys = try KeyList.keys(of: AppStorageSuite(directory: URL(fileURLWithPath: suite)))
      }
      KeyList.print(keys, as: null ? .null : json ? .json : .lines)
    }
  }
}
