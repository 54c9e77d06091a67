import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import SharedState

/// A persistence strategy that keeps a `Codable` value as `jsonb` in a PostgreSQL table, shared
/// live by every process, on every machine, that uses the same key of the same namespace.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://app@db.example.net/app")
/// @Shared(.postgres("counter", store: store)) var counter = 0
/// $counter.withLock { $0 += 1 }   // atomic across every process on every machine
/// ```
///
/// - `Shared.withLock(_:)` is one transaction: it locks the row (`SELECT … FOR UPDATE`,
///   creating it first when missing), brings the value up to date when another process wrote
///   since, applies the mutation, writes it with a new version and notifies, then commits.
/// - Writes by other processes arrive live through `LISTEN`/`NOTIFY` on one connection per
///   process and server, shared by every key. This process's own writes are not reported back.
/// - A missing row means the default value; nothing is written until the program changes it.
/// - A row whose JSON does not decode as `Value` leaves the value as it was, sets
///   `Shared.loadError`, and is not overwritten until the program writes a new value.
/// - When the server goes away, the value keeps what it had and `Shared.loadError` says so;
///   the library reconnects (50 ms, doubling up to 2 s), listens again, reloads every key and
///   clears the error. A write made meanwhile fails: `Shared.saveError` says so, and it is
///   never retried behind the program's back.
/// - A `withLock` that cannot establish the current value (no connection, `BEGIN` or the row's
///   lock failed, or the server did not answer in time) does not run its closure and writes
///   nothing: `Shared.saveError` gives the reason.
///
/// ## Limits
///
/// PostgreSQL keeps a key, its namespace and the notification of each write within limits
/// that the library checks before it sends anything (for a server with PostgreSQL's usual 8 kB
/// pages):
/// - a key takes at most **2 048 bytes** of UTF-8, and a namespace at most **512** (both are the
///   table's primary key, and an index entry holds at most 2 704 bytes);
/// - neither contains U+0000, which PostgreSQL's `text` cannot hold;
/// - the notification of a write, `["WRITER","NAMESPACE","KEY",VERSION]` as JSON, takes at
///   most **7 999 bytes** (`NOTIFY`'s limit is 8 000), counting the writer's 36-character id and
///   the longest version: only a key made mostly of control characters reaches it, since a
///   control character takes up to 6 bytes there (`\u0001`; a quote or a backslash 2; any other
///   character its UTF-8), so with the namespace `"default"` a key of 1 321 characters U+0001 is
///   the longest that fits.
///
/// A key outside them is refused in one sentence that shows the first characters of the key and
/// its length, never the whole key, and gives the limit: `Shared.loadError` when the key
/// loads, `Shared.saveError` for a write (a `withLock` does not run its closure), each a
/// ``PostgresStorageError`` of kind ``PostgresStorageError/Kind/outsideLimits``. Nothing is
/// read or written for it. <doc:Limits> gives the reasons.
///
/// The value is not in the notification, and its only limit is `jsonb`'s: less than 256 MiB
/// once PostgreSQL has parsed it (its size as text differs). The library cannot tell that size
/// beforehand: the server refuses a larger value with its own reason, in the same kind of
/// sentence (kind ``PostgresStorageError/Kind/unwritable``), and what was stored stays as it
/// was.
///
/// Reads and writes block the calling thread until the server answers (a round trip on the
/// network): like file storage, it is made for state that changes at human or script speed, not
/// for a hot loop on a far-away server. No wait lasts longer than the store's
/// ``PostgresStore/timeout``: a server that stops answering makes a write fail with a sentence
/// within it, and the store picks up again by itself once the server answers (see
/// <doc:ServerFailures>).
public struct PostgresKey<Value: Sendable>: SharedKey {
  /// The key's name within its namespace.
  public let key: String
  /// The namespace and server that hold the key.
  public let store: PostgresStore
  private let decode: @Sendable (Data) throws -> Value
  private let encode: @Sendable (Value) throws -> Data
  private let state: PostgresKeyState
  private let logger = Logger(label: "SharedStatePostgres")

  /// Creates a key with closures that turn values into JSON and back.
  ///
  /// - Parameters:
  ///   - key: The key's name: at most 2 048 bytes of UTF-8, without U+0000 (see "Limits").
  ///   - store: The namespace and server.
  ///   - decode: Turns the stored JSON into a value.
  ///   - encode: Turns a value into JSON (PostgreSQL refuses what is not JSON).
  public init(
    _ key: String,
    store: PostgresStore,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data
  ) {
    self.key = key
    self.store = store
    self.decode = decode
    self.encode = encode
    state = PostgresKeyState()
  }

  /// `key` with `state` in place of its own.
  private init(_ key: PostgresKey, state: PostgresKeyState) {
    self.key = key.key
    store = key.store
    decode = key.decode
    encode = key.encode
    self.state = state
  }

  /// The store and the key's name.
  public var id: PostgresKeyID { PostgresKeyID(store: store, key: key) }

  private var hub: PostgresConnectionHub { store.hub }

  /// Reads the row, blocking; a missing row keeps the default value.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    do {
      try withinLimits()
    } catch {
      continuation.resume(throwing: error)
      return
    }
    do {
      let deadline = hub.deadline()
      let row = try hub.connections.withConnection(by: deadline) { connection in
        try StoredRow.read(namespace: store.namespace, key: key, on: connection, logger: logger)
          .wait(on: connection, by: deadline)
      }
      let version = row?.version ?? 0
      state.fields.withLockedValue { $0.version = max($0.version, version) }
      continuation.resume(with: decoded(row))
    } catch {
      continuation.resume(throwing: failure(.unreadable, error))
    }
  }

  /// Listens for other processes' writes to the row (on the process's one listening
  /// connection), and reports a lost connection and the reload after it.
  public func subscribe(context: LoadContext<Value>, subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    // A key outside the limits is never written, so never notified: nothing to listen for, and
    // nothing to read that could clear the load error that refused it.
    guard (try? withinLimits()) != nil else { return SharedSubscription {} }
    // The first subscription through this key value reloads into its state (a reference's,
    // whose transactions use it too); each later one into a state of its own, so that what one
    // takes in is no news that the other then misses.
    let isFirst = state.isSubscribed.withLockedValue { isSubscribed in
      defer { isSubscribed = true }
      return !isSubscribed
    }
    return isFirst ? listen(into: subscriber) : withOwnKnowledge().listen(into: subscriber)
  }

  /// Listens for other processes' writes to the row, reloading into this key's state.
  private func listen(into subscriber: SharedSubscriber<Value>) -> SharedSubscription {
    let cancel = hub.notifications.addListener(
      NotificationRouter.Listener(
        namespace: store.namespace,
        key: key,
        changed: { [self] version in reload(after: version, into: subscriber) },
        lost: { [self] error in
          state.fields.withLockedValue { $0.isDisconnected = true }
          let lost = failure(.disconnected, error)
          subscriber.yieldLatest { .failure(lost) }
        }
      )
    )
    return SharedSubscription { cancel() }
  }

  /// Reads the row again when `version` (or, for `nil`, anything) may be newer than what this
  /// process holds, and delivers it under the reference's lock, so that it cannot overtake a
  /// write the reference makes meanwhile.
  private func reload(after version: Int64?, into subscriber: SharedSubscriber<Value>) {
    if let version, state.fields.withLockedValue({ version <= $0.version && !$0.isDisconnected }) { return }
    hub.notifications.readForListener(namespace: store.namespace, key: key).whenComplete { [self] result in
      // A failed read means the listening connection failed: `lost` reports it.
      guard case let .success(row) = result else { return }
      hub.notifications.deliveries.async {
        subscriber.yieldLatest {
          let isNew = state.fields.withLockedValue { fields in
            let version = row?.version ?? 0
            defer { fields.isDisconnected = false }
            guard version > fields.version || fields.isDisconnected else { return false }
            fields.version = max(fields.version, version)
            return true
          }
          return isNew ? decoded(row) : nil
        }
      }
    }
  }

  /// Writes the value as one statement (`Shared.save()`, a plain assignment). Inside
  /// `Shared.withLock(_:)` the write goes through the transaction that `withLock` began instead:
  /// see `beginTransaction(receivingChange:)`. Never queued: a write that fails now is reported now.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    do {
      try withinLimits()
      let json = try encodedJSON(value)
      let version: Int64
      do {
        let deadline = hub.deadline()
        version = try hub.connections.withConnection(by: deadline) { connection in try write(json, on: connection, by: deadline) }
      } catch {
        throw failure(.unwritable, error)
      }
      state.fields.withLockedValue { $0.version = max($0.version, version) }
      continuation.resume()
    } catch {
      continuation.resume(throwing: error)
    }
  }

  /// Refuses a key that PostgreSQL could not keep (see "Limits" above), before anything is
  /// sent to the server.
  ///
  /// - Throws: ``PostgresStorageError`` (outside limits).
  private func withinLimits() throws(PostgresStorageError) {
    // Checked once per key: the key, the namespace and the length of a writer's id never change.
    let checked = state.limits.withLockedValue { limits in
      if let limits { return limits }
      let checked = Result { () throws(KeyLimits.Exceeded) in
        try KeyLimits.check(
          key: key,
          namespace: store.namespace,
          notificationPrefix: hub.notifications.notificationPrefix(namespace: store.namespace, key: key)
        )
      }
      limits = checked
      return checked
    }
    do {
      try checked.get()
    } catch {
      throw failure(.outsideLimits, error)
    }
  }

  /// The value as JSON text.
  ///
  /// - Throws: ``PostgresStorageError`` (unwritable) when it cannot be encoded.
  private func encodedJSON(_ value: Value) throws -> String {
    do {
      return String(decoding: try encode(value), as: UTF8.self)
    } catch {
      throw failure(.unwritable, error)
    }
  }

  private func write(_ json: String, on connection: PostgresConnection, by deadline: Deadline) throws -> Int64 {
    try StoredRow.write(
      json: json,
      namespace: store.namespace,
      key: key,
      notificationPrefix: hub.notifications.notificationPrefix(namespace: store.namespace, key: key),
      on: connection,
      by: deadline,
      logger: logger
    )
  }

  /// Turns a row into what a reference takes: a value, `nil` for the default, or the decoding
  /// error.
  private func decoded(_ row: StoredRow?) -> Result<Value?, any Error> {
    guard let json = row?.json else { return .success(nil) }
    do {
      return .success(try decode(Data(json.utf8)))
    } catch {
      return .failure(failure(.undecodable, error))
    }
  }

  private func failure(_ kind: PostgresStorageError.Kind, _ error: any Error) -> PostgresStorageError {
    PostgresStorageError(kind, key: key, namespace: store.namespace, server: hub.server, underlying: error)
  }
}

extension PostgresKey: CrossProcessKey {
  /// This key with a version of the row's of its own (see ``CrossProcessKey/withOwnKnowledge()``),
  /// which knows no version yet: its first read or transaction takes the row as it is.
  package func withOwnKnowledge() -> Self {
    PostgresKey(self, state: PostgresKeyState(limitsOf: state))
  }

  /// Begins a transaction, locks the row (creating it empty when missing) and reports the row
  /// when another process wrote it since. The commit writes the new value with a new version,
  /// notifies and commits; a transaction that ends without a commit is rolled back.
  ///
  /// A key outside the limits (see "Limits" above) is refused before the server is asked: the
  /// transaction carries that refusal as its read failure.
  ///
  /// When the current value cannot be established (no connection, `BEGIN` or the row's lock
  /// failed, or the server did not answer within the store's timeout), the transaction carries
  /// that failure as its read failure: `withLock` does not run its body, nothing is written, and
  /// `Shared.saveError` says why. A commit of such a transaction refuses too. A second commit
  /// in one `withLock` (a nested `withLock` on the same state) writes as one statement, after
  /// the first has committed.
  ///
  /// Beginning and committing each wait at most the store's timeout. A commit whose answer does
  /// not come in time (or whose connection is lost while it waits) is reported as unconfirmed:
  /// the server may have applied it.
  package func beginTransaction(receivingChange receive: (Result<Value?, any Error>) -> Void) -> any KeyTransaction {
    let transaction: RowTransaction
    do {
      try withinLimits()
    } catch {
      // A key the server could not keep: nothing is read, nothing runs, nothing is written.
      return FailedKeyTransaction(error)
    }
    do {
      transaction = try RowTransaction(
        namespace: store.namespace, key: key, connections: hub.connections, by: hub.deadline(), logger: logger
      )
    } catch {
      // Nothing could be read: `withLock` runs no closure and commits nothing.
      return FailedKeyTransaction(failure(.unwritable, error))
    }
    if let change = change(since: transaction.row) { receive(change) }
    return PostgresKeyTransaction(row: transaction, hub: hub)
  }

  package func commit(_ value: Value, through transaction: any KeyTransaction) throws {
    guard let transaction = transaction as? PostgresKeyTransaction else {
      throw transaction.readFailure ?? failure(.unwritable, TransactionOfAnotherKey())
    }
    try commit(value, in: transaction.row)
  }

  /// The locked row's value when another process wrote it since this process last read or
  /// wrote it, or `nil`; the row's version is remembered either way.
  private func change(since row: StoredRow) -> Result<Value?, any Error>? {
    let isNew = state.fields.withLockedValue { fields in
      defer { fields.version = row.version }
      return row.version != fields.version
    }
    return isNew ? decoded(row) : nil
  }

  /// Writes `value` with a new version, notifies and commits `transaction`.
  private func commit(_ value: Value, in transaction: RowTransaction) throws {
    let json = try encodedJSON(value)
    let deadline = hub.deadline()
    let version: Int64
    do {
      version = try transaction.commit(by: deadline) { connection in try write(json, on: connection, by: deadline) }
    } catch let error as RowTransaction.CommitFailure {
      var reported = failure(.unwritable, error.underlying)
      reported.isUnconfirmed = error.isUnconfirmed
      throw reported
    } catch let error as PostgresStorageError {
      throw error
    } catch {
      // A second commit of a nested `withLock`, written after the first one ended.
      throw failure(.unwritable, error)
    }
    state.fields.withLockedValue { $0.version = max($0.version, version) }
  }
}

/// What one key remembers between calls. Shared by the copies of a key, and so by its
/// reference.
final class PostgresKeyState: Sendable {
  struct Fields: Sendable {
    /// The version of the value this process last read or wrote (0: nothing stored).
    var version: Int64 = 0
    /// The listening connection was lost: the next reload delivers whatever it finds.
    var isDisconnected = false
  }

  let fields: NIOLockedValueBox<Fields>
  /// Whether the key is within PostgreSQL's limits, once checked.
  let limits: NIOLockedValueBox<Result<Void, KeyLimits.Exceeded>?>
  /// Whether a subscription reloads into this state (see ``PostgresKey/subscribe(context:subscriber:)``).
  let isSubscribed = NIOLockedValueBox(false)

  init() {
    fields = NIOLockedValueBox(Fields())
    limits = NIOLockedValueBox(nil)
  }

  /// A state that knows no version yet, and what `other` found of the key's limits.
  init(limitsOf other: PostgresKeyState) {
    fields = NIOLockedValueBox(Fields())
    limits = NIOLockedValueBox(other.limits.withLockedValue { $0 })
  }
}

extension PostgresKey: CustomStringConvertible {
  /// `.postgres("key", store: "namespace"@server)`.
  public var description: String { ".postgres(\(String(reflecting: key)), store: \(store))" }
}

/// The identity of a ``PostgresKey``: its store (namespace and server) and its name.
public struct PostgresKeyID: Hashable, Sendable {
  /// The namespace and server.
  public let store: PostgresStore
  /// The key's name.
  public let key: String
}

extension SharedReaderKey {
  /// A key for a `Codable` value stored as `jsonb` in PostgreSQL: see ``PostgresKey``.
  ///
  /// - Parameters:
  ///   - key: The key's name within the store's namespace: at most 2 048 bytes of UTF-8, without
  ///     U+0000 (see <doc:Limits>).
  ///   - store: The namespace and the server.
  ///   - decoder: The decoder for the stored JSON.
  ///   - encoder: The encoder for the stored JSON.
  public static func postgres<Value: Codable & Sendable>(
    _ key: String,
    store: PostgresStore,
    decoder: JSONDecoder = JSONDecoder(),
    encoder: JSONEncoder = JSONEncoder()
  ) -> Self where Self == PostgresKey<Value> {
    PostgresKey(
      key,
      store: store,
      decode: { try decoder.decode(Value.self, from: $0) },
      encode: { try encoder.encode($0) }
    )
  }
}
