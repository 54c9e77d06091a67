import ArgumentParser
import Foundation
import SharedState
import SharedStatePostgres

/// `shared-demo keys`: lists the keys of an app-storage suite.
struct Keys: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the keys that have a value in an app-storage suite, one per line, sorted."
  )

  @Option(help: "The app-storage suite directory.")
  var suite: String?

  @OptionGroup var postgres: PostgresOptions

  func validate() throws {
    guard (suite == nil) != (postgres.url == nil) else {
      throw ValidationError("Give either --suite DIR or --postgres URL.")
    }
  }

  func run() async throws {
    try await reportingFailure {
      if let store = postgres.store {
        do {
          for key in try store.keys() { Output.line(key) }
        } catch {
          throw DemoError(String(describing: error))
        }
        return
      }
      guard let suite else { return }
      let store = AppStorageSuite(directory: URL(fileURLWithPath: suite))
      do {
        for key in try store.keys() {
          Output.line(key)
        }
      } catch {
        throw DemoError("The keys of \(suite) could not be listed: \(error)")
      }
    }
  }
}
