import ArgumentParser
import Foundation
import SharedState

/// Which stored value a subcommand works on.
struct StorageOptions: ParsableArguments {
  @Option(name: .long, help: "The file that holds the value (file storage).")
  var file: String

  @Flag(help: "Flush each write to the disk (fsync) before it counts as done.")
  var fsync = false

  /// The file's URL.
  var url: URL { URL(fileURLWithPath: file) }

  /// The key for the file, holding a `Codable` value.
  func key<Value: Codable & Sendable>(_: Value.Type = Value.self) -> FileStorageKey<Value> {
    .fileStorage(url, durability: fsync ? .flushedToDisk : .atomic)
  }

  /// Opens the value as JSON, failing when the file cannot be read or decoded.
  func openJSON() throws -> Shared<JSONValue> {
    let shared = Shared<JSONValue>(wrappedValue: .null, key())
    try check(shared)
    return shared
  }

  /// Opens the value as an integer (`0` when there is no file), failing when the file cannot be
  /// read or decoded.
  func openInteger() throws -> Shared<Int> {
    let shared = Shared<Int>(wrappedValue: 0, key())
    try check(shared)
    return shared
  }

  private func check<Value>(_ shared: Shared<Value>) throws {
    if let error = shared.loadError {
      throw DemoError(String(describing: error))
    }
  }
}

extension AsyncParsableCommand {
  /// Runs `body`, turning a failure into one sentence on standard error and exit status 1.
  func reportingFailure(_ body: () async throws -> Void) async throws {
    do {
      try await body()
    } catch let error as DemoError {
      let sentence = error.description
      Output.error("shared-demo: \(sentence)\(sentence.hasSuffix(".") ? "" : ".")")
      throw ExitCode.failure
    }
  }
}
