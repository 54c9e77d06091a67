import Foundation
import SharedState
import SharedStatePostgres

/// One stored value the tools work on: a file of file storage, a key of an app-storage suite, or
/// a key in PostgreSQL; and the operations both `shared-state` and `shared-demo` make on it.
public struct StoredValue: Sendable, CustomStringConvertible {
  /// Where the value lives.
  public enum Location: Sendable {
    /// A file of file storage, by path.
    case file(String)
    /// A key of an app-storage suite.
    case suite(AppStorageSuite, key: String)
    /// A key of a namespace in PostgreSQL.
    case postgres(PostgresStore, key: String)
  }

  /// Where the value lives.
  public let location: Location
  /// How far a write to a file goes before it returns (a suite has its own).
  public let durability: FileDurability
  /// The most bytes a file is read to (a suite has its own).
  public let maximumReadSize: Int

  /// The value in the file at `path`.
  public init(
    file path: String,
    durability: FileDurability = .atomic,
    maximumReadSize: Int = FileStorage.defaultMaximumReadSize
  ) {
    location = .file(path)
    self.durability = durability
    self.maximumReadSize = maximumReadSize
  }

  /// The value of `key` in `suite`.
  public init(suite: AppStorageSuite, key: String) {
    location = .suite(suite, key: key)
    durability = .atomic
    maximumReadSize = suite.maximumReadSize
  }

  /// The value of `key` in PostgreSQL, in `store`'s namespace.
  public init(store: PostgresStore, key: String) {
    location = .postgres(store, key: key)
    durability = .atomic
    maximumReadSize = FileStorage.defaultMaximumReadSize
  }

  /// What the value is, for messages: the file's path, or the key and its suite or store.
  public var description: String {
    switch location {
    case let .file(path): path
    case let .suite(suite, key): "key \(String(reflecting: key)) of \(suite)"
    case let .postgres(store, key): "key \(String(reflecting: key)) of \(store)"
    }
  }

  /// The key for the value, holding a `Codable` value.
  public func key<Value: Codable & Sendable>(_: Value.Type = Value.self) -> any SharedKey<Value> {
    switch location {
    case let .file(path):
      FileStorageKey<Value>.fileStorage(
        URL(fileURLWithPath: path), durability: durability, maximumReadSize: maximumReadSize
      )
    case let .suite(suite, key): AppStorageKey<Value>.appStorage(key, store: suite)
    case let .postgres(store, key): PostgresKey<Value>.postgres(key, store: store)
    }
  }

  /// The key for a value of any JSON. A file is read by ``JSONValue/init(json:)`` and written as
  /// ``JSONValue/compactJSON``, not through `Codable`, whose guessing of each value's type took
  /// five times as long and which keeps an integer beyond `Int` to 38 digits only (a suite's
  /// keys have no such choice).
  public func jsonKey() -> any SharedKey<JSONValue> {
    guard case let .file(path) = location else { return key() }
    return FileStorageKey<JSONValue>.fileStorage(
      URL(fileURLWithPath: path),
      decode: { try JSONValue(json: $0) },
      encode: { Data($0.compactJSON.utf8) },
      durability: durability,
      maximumReadSize: maximumReadSize
    )
  }

  /// Opens the value as JSON (`null` when nothing is stored), failing when it cannot be read or
  /// decoded.
  ///
  /// - Throws: ``CommandError`` with the reason.
  public func openJSON() throws -> Shared<JSONValue> {
    let shared = Shared<JSONValue>(wrappedValue: .null, jsonKey())
    try check(shared)
    return shared
  }

  /// Opens the value as an integer (`0` when nothing is stored), failing when it cannot be read
  /// or decoded.
  ///
  /// - Throws: ``CommandError`` with the reason.
  public func openInteger() throws -> Shared<Int> {
    let shared = Shared<Int>(wrappedValue: 0, key())
    try check(shared)
    return shared
  }

  /// Fails when the value could not be loaded. That changes cannot be watched (inotify's
  /// limits reached) is no failure here: a one-shot command reads and writes under the lock and
  /// needs no watching, and the error arrives whenever the watcher gives up, so failing on it
  /// would fail at random. Watching commands report it.
  private func check<Value>(_ shared: Shared<Value>) throws {
    if let error = shared.loadError, (error as? FileStorageError)?.reason != .unwatched {
      throw CommandError(sentence(for: error))
    }
  }

  /// One sentence for a load error that names the value: the library's own errors say which
  /// file or key they are about; a decoder's error (the load error of contents that do not
  /// decode) may not.
  public func sentence(for error: any Error) -> String {
    switch error {
    case is FileStorageError, is AppStorageError, is PostgresStorageError: String(describing: error)
    default: "\(description) does not hold a valid value: \(error)"
    }
  }

  /// The stored value, or `nil` when nothing is stored (see ``hasValue()``). Nothing is written
  /// or created: a key's default is not stored by reading it here.
  ///
  /// - Throws: ``CommandError`` when the value cannot be read or does not decode.
  public func read() throws -> JSONValue? {
    if case let .suite(suite, key) = location {
      do {
        return try suite.value(forKey: key, as: JSONValue.self)
      } catch {
        throw CommandError(sentence(for: error))
      }
    }
    guard try hasValue() else { return nil }
    return try openJSON().wrappedValue
  }

  /// Stores `value`, whatever is stored now (even contents that do not decode: a set replaces
  /// them).
  ///
  /// - Throws: ``CommandError`` when the value cannot be written; what was stored is kept.
  public func set(_ value: JSONValue) throws {
    let shared = Shared<JSONValue>(wrappedValue: .null, jsonKey())
    shared.withLock { $0 = value }
    if let error = shared.saveError {
      throw CommandError(String(describing: error))
    }
  }

  /// Adds `amount` to `counter`, this value opened by ``openInteger()``, in one `withLock`
  /// (atomic across processes), and returns the sum.
  ///
  /// - Throws: ``CommandError`` when the write fails, or when the sum would overflow (then
  ///   nothing is written).
  @discardableResult
  public func add(_ amount: Int, to counter: Shared<Int>) throws -> Int {
    // A body that returns nothing, as most programs' are: the library runs it on code compiled
    // for `Shared<Int>` (one that returns a value runs generic code, 0.1–0.2 µs more).
    var sum: Int?
    counter.withLock { value in
      let (total, overflowed) = value.addingReportingOverflow(amount)
      guard !overflowed else { return }
      value = total
      sum = total
    }
    if let error = counter.saveError {
      throw CommandError(String(describing: error))
    }
    guard let sum else {
      throw CommandError("adding \(amount) to \(description) would go beyond \(amount < 0 ? Int.min : Int.max)")
    }
    return sum
  }

  /// Whether a value is stored: a file or a suite key's file that exists and is not empty (the
  /// library reads a missing or empty file as no value), or a row with a value in PostgreSQL.
  ///
  /// - Throws: ``CommandError`` when that cannot be known.
  public func hasValue() throws -> Bool {
    switch location {
    case let .file(path):
      return try Self.isNonEmptyFile(path, describing: description)
    case let .suite(suite, key):
      let name: String
      do {
        name = try AppStorageSuite.fileName(forKey: key)
      } catch {
        throw CommandError(String(describing: error))
      }
      return try Self.isNonEmptyFile(suite.directory.appendingPathComponent(name).path, describing: description)
    case let .postgres(store, key):
      do {
        return try store.keys().contains(key)
      } catch {
        throw CommandError(String(describing: error))
      }
    }
  }

  private static func isNonEmptyFile(_ path: String, describing description: String) throws -> Bool {
    var status = stat()
    guard stat(path, &status) == 0 else {
      if errno == ENOENT || errno == ENOTDIR { return false }
      throw CommandError("\(description) cannot be examined: \(String(cString: strerror(errno)))")
    }
    return status.st_size > 0
  }

  /// Removes the stored value, so that a program reading it gets its default: a suite's key
  /// file is removed under the suite's lock; a file (`--file`) is unlinked, as `rm` does, which
  /// watching processes see as the value going back to their default; a PostgreSQL key's row
  /// loses its value (``SharedStatePostgres/PostgresStore/removeValue(forKey:)``). Nothing
  /// happens when nothing is stored.
  ///
  /// - Throws: ``CommandError`` when the value cannot be removed.
  public func reset() throws {
    switch location {
    case let .file(path):
      guard unlink(path) == 0 || errno == ENOENT else {
        throw CommandError("\(path) could not be removed: \(String(cString: strerror(errno)))")
      }
    case let .suite(suite, key):
      do {
        try suite.removeValue(forKey: key)
      } catch {
        throw CommandError(String(describing: error))
      }
    case let .postgres(store, key):
      do {
        try store.removeValue(forKey: key)
      } catch {
        throw CommandError(String(describing: error))
      }
    }
  }
}
