import ArgumentParser
import Foundation
import SharedState
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

  /// What the value is, for messages: the file's path, or the suite and key.
  var description: String {
    if let file { return file }
    if let store = postgres.store { return "key \(String(reflecting: key ?? "")) of \(store)" }
    return "key \(String(reflecting: key ?? "")) of \(suite ?? "")"
  }

  private var durability: FileDurability { fsync ? .flushedToDisk : .atomic }

  /// The key for the value, holding a `Codable` value.
  func key<Value: Codable & Sendable>(_: Value.Type = Value.self) -> any SharedKey<Value> {
    if let store = postgres.store, let key {
      return PostgresKey<Value>.postgres(key, store: store)
    }
    if let suite, let key {
      let store = AppStorageSuite(
        directory: URL(fileURLWithPath: suite), durability: durability, maximumReadSize: maxReadSize
      )
      return AppStorageKey<Value>.appStorage(key, store: store)
    }
    return FileStorageKey<Value>.fileStorage(
      URL(fileURLWithPath: file ?? ""), durability: durability, maximumReadSize: maxReadSize
    )
  }

  /// The key for a value of any JSON. A file is parsed by ``JSONValue/init(json:)``, not through
  /// `Decodable`, whose guessing of each value's type took five times as long (a suite's keys
  /// have no such choice).
  func jsonKey() -> any SharedKey<JSONValue> {
    guard postgres.store == nil, suite == nil, let file else { return key() }
    return FileStorageKey<JSONValue>.fileStorage(
      URL(fileURLWithPath: file),
      decode: { try JSONValue(json: $0) },
      encode: { try JSONEncoder().encode($0) },
      durability: durability,
      maximumReadSize: maxReadSize
    )
  }

  /// Opens the value as JSON, failing when the file cannot be read or decoded.
  func openJSON() throws -> Shared<JSONValue> {
    let shared = Shared<JSONValue>(wrappedValue: .null, jsonKey())
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

  /// Fails when the value could not be loaded. That changes cannot be watched (inotify's
  /// limits reached) is no failure here: a one-shot command reads and writes under the lock and
  /// needs no watching, and the error arrives whenever the watcher gives up, so failing on it
  /// would fail at random. `watch` reports it.
  private func check<Value>(_ shared: Shared<Value>) throws {
    if let error = shared.loadError, (error as? FileStorageError)?.reason != .unwatched {
      throw DemoError(sentence(for: error))
    }
  }

  /// One sentence for a load error that names the value: the library's own errors say which
  /// file or key they are about; a decoder's error (the load error of contents that do not
  /// decode) may not.
  func sentence(for error: any Error) -> String {
    switch error {
    case is FileStorageError, is AppStorageError, is PostgresStorageError: String(describing: error)
    default: "\(description) does not hold a valid value: \(error)"
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
