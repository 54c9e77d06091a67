import Logging
import PostgresNIO

/// A namespace of shared values in a PostgreSQL database: the database-backed counterpart of
/// an app-storage suite directory.
///
/// ```swift
/// let store = try PostgresStore(url: "postgres://app@db.example.net/app", namespace: "desktop")
/// @Shared(.postgres("counter", store: store)) var counter = 0
/// ```
///
/// Values live in one table, `shared_state (namespace, key, value jsonb, version)`, created on
/// first use when missing. Every store of a process that names the same server, user, database
/// and timeout shares one listening connection (and a few connections for reads and
/// transactions), whatever its namespace.
///
/// No call waits for the server longer than the store's ``timeout`` (30 seconds unless you
/// choose): see <doc:ServerFailures>.
public struct PostgresStore: Hashable, Sendable {
  /// The namespace: keys of two namespaces are different state.
  public let namespace: String
  let hub: PostgresConnectionHub

  /// How long a call waits for the server unless the store is given another timeout: 30
  /// seconds, so that a pause of the server of 20 seconds (a checkpoint, a failover, a busy
  /// network) is ridden out.
  public static let defaultTimeout: Duration = .seconds(30)

  /// A store for a postgres-nio configuration.
  ///
  /// - Parameters:
  ///   - configuration: How to reach the server. Its connect timeout is shortened to `timeout`
  ///     when longer; the server settings `statement_timeout`, `lock_timeout` and
  ///     `idle_in_transaction_session_timeout` are added to its startup parameters unless it
  ///     sets them.
  ///   - namespace: The namespace of this store's keys: at most 512 bytes of UTF-8, without
  ///     U+0000 (see <doc:Limits>; a longer one makes every key fail with a sentence).
  ///   - timeout: The longest any wait for the server lasts (see <doc:ServerFailures>); more
  ///     than zero.
  public init(
    configuration: PostgresConnection.Configuration,
    namespace: String = "default",
    timeout: Duration = PostgresStore.defaultTimeout
  ) {
    precondition(timeout > .zero, "A PostgresStore's timeout must be more than zero.")
    self.namespace = namespace
    let (seconds, attoseconds) = timeout.components
    let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    hub = PostgresConnectionHub.shared(
      for: configuration,
      timeout: .nanoseconds(nanoseconds.overflow ? .max : max(1, nanoseconds.partialValue + attoseconds / 1_000_000_000))
    )
  }

  /// A store for a connection URL: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or
  /// `postgres://USER@/DATABASE?host=/socket/directory` for a Unix socket. `?user=` and
  /// `?password=` may stand in for the user and password of the authority.
  ///
  /// - Parameters:
  ///   - url: The connection URL. No error or description repeats its password.
  ///   - namespace: The namespace of this store's keys: at most 512 bytes of UTF-8, without
  ///     U+0000 (see <doc:Limits>; a longer one makes every key fail with a sentence).
  ///   - timeout: The longest any wait for the server lasts (see <doc:ServerFailures>); more
  ///     than zero.
  /// - Throws: ``PostgresURLError`` for a URL that cannot be used (one that does not parse,
  ///   names no user or host, or a port outside 1–65535).
  public init(url: String, namespace: String = "default", timeout: Duration = PostgresStore.defaultTimeout) throws {
    self.init(configuration: try PostgresURL.configuration(parsing: url), namespace: namespace, timeout: timeout)
  }

  /// The server, as `host:port` or the socket's path.
  public var server: String { hub.server }

  /// The longest any wait for the server lasts: connecting, a read, a write, the beginning or
  /// the commit of a `withLock`.
  public var timeout: Duration { .nanoseconds(hub.timeout.nanoseconds) }

  /// The keys of the namespace that hold a value, sorted by their bytes.
  ///
  /// - Throws: ``PostgresStorageError`` when the server cannot be asked, or (kind
  ///   ``PostgresStorageError/Kind/outsideLimits``) when the namespace is longer than 512 bytes
  ///   of UTF-8 or holds U+0000, which PostgreSQL cannot keep (see <doc:Limits>).
  public func keys() throws -> [String] {
    do {
      try KeyLimits.check(namespace: namespace)
    } catch {
      throw PostgresStorageError(.outsideLimits, key: nil, namespace: namespace, server: server, underlying: error)
    }
    do {
      let deadline = hub.deadline()
      return try hub.connections.withConnection(by: deadline) { connection in
        try StoredRow.keys(namespace: namespace, on: connection, by: deadline, logger: Logger(label: "SharedStatePostgres"))
      }
    } catch {
      throw PostgresStorageError(.unlistable, key: nil, namespace: namespace, server: server, underlying: error)
    }
  }

  /// Whether both are the same namespace on the same server, with the same timeout (stores that
  /// differ in their timeout use connections of their own, and are different stores).
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.namespace == rhs.namespace && lhs.hub === rhs.hub
  }

  /// Hashes the namespace, the server and the timeout.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(namespace)
    hasher.combine(ObjectIdentifier(hub))
  }
}

extension PostgresStore: CustomStringConvertible {
  /// `namespace@server`.
  public var description: String { "\(String(reflecting: namespace))@\(server)" }
}

extension PostgresStore: CustomReflectable {
  /// The namespace, the server and the timeout: never the connection's configuration, which
  /// holds the password (`dump` and custom-dump print what a mirror shows).
  public var customMirror: Mirror {
    Mirror(self, children: ["namespace": namespace, "server": server, "timeout": timeout], displayStyle: .struct)
  }
}
