import ArgumentParser
import Foundation
import SharedState

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

  func validate() throws {
    if null && json { throw ValidationError("--null and --json cannot be used together.") }
  }

  @Option(help: "The app-storage suite directory.")
  var suite: String

  func run() async throws {
    try await reportingFailure {
      let store = AppStorageSuite(directory: URL(fileURLWithPath: suite))
      do {
        let keys = try store.keys()
        if null {
          FileHandle.standardOutput.write(Data(keys.map { $0 + "\0" }.joined().utf8))
        } else if json {
          for key in keys {
            // A JSON string: quotes, backslashes and control characters escaped.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .withoutEscapingSlashes
            let encoded = try encoder.encode(key)
            Output.line(String(decoding: encoded, as: UTF8.self))
          }
        } else {
          for key in keys {
            Output.line(key)
          }
        }
      } catch {
        throw DemoError("The keys of \(suite) could not be listed: \(error)")
      }
    }
  }
}
