import ArgumentParser
import Foundation
import SharedState

/// `shared-demo keys`: lists the keys of an app-storage suite.
struct Keys: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the keys that have a value in an app-storage suite, one per line, sorted."
  )

  @Option(help: "The app-storage suite directory.")
  var suite: String

  func run() async throws {
    try await reportingFailure {
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
