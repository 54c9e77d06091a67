import ArgumentParser
import Foundation
import SharedState
import SharedStateCommandLine
import SharedStatePostgres

/// Where a command's values are: the options every subcommand takes (`--file`, `--postgres`)
/// and the rule that turns SUITE and KEY into a stored value.
struct ValueOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp("The value is this whole file (file storage): give no SUITE or KEY.", valueName: "path"),
    completion: .file()
  )
  var file: String?

  @Option(
    help: ArgumentHelp(
      "The values live in this PostgreSQL server's shared_state table, and SUITE is a namespace there: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or ...@/DATABASE?host=/socket/dir).",
      valueName: "url"
    )
  )
  var postgres: String?

  @Option(help: ArgumentHelp("The longest any wait for the PostgreSQL server lasts, in seconds (default: 30).", valueName: "seconds"))
  var postgresTimeout: Double?

  @Flag(help: "Flush each write to the disk (fsync) before it counts as done.")
  var fsync = false

  @Option(help: ArgumentHelp("Read at most this many bytes of a file (default: 64 MiB); a longer file is an error, and is not written over.", valueName: "bytes"))
  var maxReadSize = FileStorage.defaultMaximumReadSize

  func validate() throws {
    if file != nil, postgres != nil { throw ValidationError("Give --file or --postgres, not both.") }
    if postgres == nil, postgresTimeout != nil { throw ValidationError("--postgres-timeout needs --postgres.") }
    try PostgresOptions.validate(timeout: postgresTimeout)
  }

  private var durability: FileDurability { fsync ? .flushedToDisk : .atomic }

  /// Checks how many operands a command got: with `--file` none, otherwise SUITE and (when
  /// `needsKey`) KEY; `extra` more at the end (a value to set).
  func validate(operands: [String], keyIsOptional: Bool = false, needsKey: Bool = true, extra: [String] = []) throws {
    let expected: [String] =
      (file != nil ? [] : ["SUITE"] + (needsKey && !keyIsOptional ? ["KEY"] : [])) + extra
    let maximum = expected.count + (file == nil && keyIsOptional ? 1 : 0)
    guard operands.count >= expected.count, operands.count <= maximum else {
      let wanted = expected.isEmpty ? "no arguments" : expected.joined(separator: " ")
      throw ValidationError(
        operands.count < expected.count
          ? "Missing \(expected[operands.count...].joined(separator: " ")) (expected \(wanted)\(file != nil ? " with --file" : ""))."
          : "Too many arguments (expected \(wanted)\(file != nil ? " with --file" : ""))."
      )
    }
  }

  /// Whether the values are in a file, a suite or PostgreSQL, and which.
  enum Place {
    case file(String)
    case suite(AppStorageSuite)
    case postgres(namespace: String)
  }

  /// The file, or the suite or namespace named by `name`.
  ///
  /// - Parameter mustExist: Whether a suite's directory must be there already (for commands
  ///   that read: an unknown suite is then an error, rather than no values).
  func place(suite name: String?, mustExist: Bool) throws -> Place {
    if let file { return .file(file) }
    guard let name else { throw CommandError("no SUITE given", status: .usage) }
    if postgres != nil { return .postgres(namespace: name) }
    let suite: AppStorageSuite
    do {
      suite =
        name.contains("/")
        ? AppStorageSuite(directory: URL(fileURLWithPath: name), durability: durability, maximumReadSize: maxReadSize)
        : try AppStorageSuite(named: name, durability: durability, maximumReadSize: maxReadSize)
    } catch {
      throw CommandError(String(describing: error))
    }
    if mustExist {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: suite.directory.path, isDirectory: &isDirectory) else {
        throw CommandError("there is no suite \(String(reflecting: name)): \(suite.directory.path) does not exist")
      }
      guard isDirectory.boolValue else {
        throw CommandError("\(suite.directory.path) is not a suite's directory")
      }
    }
    return .suite(suite)
  }

  /// The PostgreSQL store of `namespace`.
  func store(namespace: String) throws -> PostgresStore {
    guard let postgres else { throw CommandError("no --postgres URL given", status: .usage) }
    do {
      return try PostgresOptions.store(url: postgres, namespace: namespace, timeout: postgresTimeout)
    } catch {
      throw CommandError(String(describing: error))
    }
  }

  /// The value at `operands` (SUITE KEY, or none with `--file`).
  func value(_ operands: [String], mustExist: Bool) throws -> StoredValue {
    let place = try place(suite: operands.first, mustExist: mustExist)
    return try value(in: place, key: operands.dropFirst().first)
  }

  /// The value of `key` in `place` (no key for a file).
  func value(in place: Place, key: String?) throws -> StoredValue {
    switch place {
    case let .file(path):
      return StoredValue(file: path, durability: durability, maximumReadSize: maxReadSize)
    case let .suite(suite):
      guard let key else { throw CommandError("no KEY given", status: .usage) }
      return StoredValue(suite: suite, key: key)
    case let .postgres(namespace):
      guard let key else { throw CommandError("no KEY given", status: .usage) }
      return StoredValue(store: try store(namespace: namespace), key: key)
    }
  }

  /// The keys that have a value in `place`, sorted.
  func keys(in place: Place) throws -> [String] {
    switch place {
    case .file:
      throw CommandError("a file holds one value and has no keys: give a SUITE instead of --file", status: .usage)
    case let .suite(suite):
      return try KeyList.keys(of: suite)
    case let .postgres(namespace):
      return try KeyList.keys(of: try store(namespace: namespace))
    }
  }
}
