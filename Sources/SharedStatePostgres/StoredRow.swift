import Logging
import NIOCore
import PostgresNIO

/// One row of the table: a key's JSON (`nil` when the row holds no value) and how many writes
/// made it. The SQL of every read and write of a row is here.
struct StoredRow: Sendable {
  /// The JSON text, as PostgreSQL normalised it.
  var json: String?
  /// Counts the writes; only grows.
  var version: Int64

  /// Reads the row, or `nil` when there is none.
  static func read(
    namespace: String,
    key: String,
    on connection: PostgresConnection,
    logger: Logger
  ) -> EventLoopFuture<StoredRow?> {
    connection.query(
      """
      SELECT value::text, version FROM \(unescaped: PostgresConnectionHub.table) \
      WHERE namespace = \(namespace) AND key = \(key)
      """,
      logger: logger
    ).flatMapThrowing { result in
      try result.rows.first.map { row in
        let (json, version) = try row.decode((String?, Int64).self)
        return StoredRow(json: json, version: version)
      }
    }
  }

  /// Locks the row for the rest of the transaction and reads it. A missing row is first
  /// created empty (version 0), so that there is a row to lock: two first writers then queue on
  /// it like any others. The empty row is rolled back with the transaction if nothing is written.
  static func lock(
    namespace: String,
    key: String,
    on connection: PostgresConnection,
    by deadline: Deadline,
    logger: Logger
  ) throws -> StoredRow {
    let table = PostgresConnectionHub.table
    let select: PostgresQuery = """
      SELECT value::text, version FROM \(unescaped: table) \
      WHERE namespace = \(namespace) AND key = \(key) FOR UPDATE
      """
    func selected() throws -> StoredRow? {
      try connection.query(select, logger: logger).wait(on: connection, by: deadline).rows.first.map { row in
        let (json, version) = try row.decode((String?, Int64).self)
        return StoredRow(json: json, version: version)
      }
    }
    if let row = try selected() { return row }
    _ = try connection.query(
      """
      INSERT INTO \(unescaped: table) (namespace, key, value, version) \
      VALUES (\(namespace), \(key), NULL, 0) ON CONFLICT DO NOTHING
      """,
      logger: logger
    ).wait(on: connection, by: deadline)
    return try selected() ?? StoredRow(json: nil, version: 0)
  }

  /// Writes `json` as the row's value, creating the row when missing, and notifies every
  /// listening process in the same statement (PostgreSQL delivers it on commit). Returns the
  /// new version.
  static func write(
    json: String,
    namespace: String,
    key: String,
    notificationPrefix: String,
    on connection: PostgresConnection,
    by deadline: Deadline,
    logger: Logger
  ) throws -> Int64 {
    let table = PostgresConnectionHub.table
    let result = try connection.query(
      """
      WITH written AS (
        INSERT INTO \(unescaped: table) AS t (namespace, key, value, version) \
        VALUES (\(namespace), \(key), \(json)::jsonb, 1) \
        ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, version = t.version + 1 \
        RETURNING t.version
      ) SELECT version, pg_notify(\(PostgresConnectionHub.channel), \(notificationPrefix) || version::text || ']') \
      FROM written
      """,
      logger: logger
    ).wait(on: connection, by: deadline)
    guard let row = result.rows.first else { return 0 }
    return try row.decode(Int64.self)
  }

  /// The keys of a namespace that hold a value, in byte order.
  static func keys(
    namespace: String,
    on connection: PostgresConnection,
    by deadline: Deadline,
    logger: Logger
  ) throws -> [String] {
    try connection.query(
      """
      SELECT key FROM \(unescaped: PostgresConnectionHub.table) \
      WHERE namespace = \(namespace) AND value IS NOT NULL ORDER BY key COLLATE "C"
      """,
      logger: logger
    ).wait(on: connection, by: deadline).rows.map { try $0.decode(String.self) }
  }
}
