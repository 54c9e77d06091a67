import ArgumentParser
import Foundation
import SharedState
import SharedStateCommandLine
import SharedStatePostgres

/// Which stored value a subcommand works on: a file (`--file`), a key of an app-storage
/// suite (`--suite` and `--key`), or a key in PostgreSQL (`--postgres` and `--key`).
struct StorageOptions: ParsableArguments {
  @Option(name: .long, help: "The file that holds the value (file storage).")
  var file: String?

  @Option(name: .long, help: "The app-storage suite directory that holds the value (with --key).")
  var suite: String?

  @Option(name: .long, help: "The key of the value in the suite given by --suite.")
  var key: String?

  @Flag(help: "Flush each write to the disk (fsync) before it counts as done.")
  var fsync = false

  @Option(help: "Read at most this many bytes of the file (default 64 MiB); a longer file is an error, and is not written over.")
  var maxReadSize = FileStorage.defaultMaximumReadSize

  @OptionGroup var postgres: PostgresOptions

  func validate() throws {
    if postgres.url != nil {
      guard file == nil, suite == nil else { throw ValidationError("Give --postgres without --file or --suite.") }
      guard key != nil else { throw ValidationError("--postgres needs --key.") }
      return
    }
    switch (file, suite, key) {
    case (.some, nil, nil), (nil, .some, .some): break
    case (.some, _, _): throw ValidationError("Give either --file or --suite with --key, not both.")
    case (nil, .some, nil): throw ValidationError("--suite needs --key.")
    case (nil, nil, .some): throw ValidationError("--key needs --suite.")
    case (nil, nil, nil): throw ValidationError("Give --file PATH, or --suite DIR with --key NAME.")
    }
  }

  /// The value the options name.
  var value: StoredValue {
    if let store = postgres.store, let key { return StoredValue(store: store, key: key) }
    if let suite, let key {
      let durability: FileDurability = fsync ? .flushedToDisk : .atomic
      let store = AppStorageSuite(
        directory: URL(fileURLWithPath: suite), durability: durability, maximumReadSize: maxReadSize
      )
      return StoredValue(suite: store, key: key)
    }
    return StoredValue(file: file ?? "", durability: fsync ? .flushedToDisk : .atomic, maximumReadSize: maxReadSize)
  }

  /// What the value is, for messages: the file's path, or the suite and key.
  var description: String { value.description }

  /// The key for the value, holding a `Codable` value.
  func key<Value: Codable & Sendable>(_: Value.Type = Value.self) -> any SharedKey<Value> { value.key() }

  /// The key for a value of any JSON (see ``StoredValue/jsonKey()``).
  func jsonKey() -> any SharedKey<JSONValue> { value.jsonKey() }

  /// Opens the value as JSON, failing when the file cannot be read or decoded.
  func openJSON() throws -> Shared<JSONValue> { try value.openJSON() }

  /// Opens the value as an integer (`0` when there is no file), failing when the file cannot be
  /// read or decoded.
  func openInteger() throws -> Shared<Int> { try value.openInteger() }

  /// One sentence for a load error that names the value.
  func sentence(for error: any Error) -> String { value.sentence(for: error) }
}

extension AsyncParsableCommand {
  /// Runs `body`, turning a failure into one sentence on standard error and exit status 1.
  func reportingFailure(_ body: () async throws -> Void) async throws {
    try await reportingFailure(as: "shared-demo", body)
  }
}
