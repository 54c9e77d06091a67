import Logging
import PostgresNIO

extension PostgresStore {
  /// Removes the value stored under `key`, so that every process reading it gets its default,
  /// as a missing row gives; nothing happens when there is none.
  ///
  /// The row keeps its version, one higher, with no value (as a row a `withLock` creates has
  /// none), and the processes listening are told as they are of a write: their value goes back
  /// to its default at once. The key is no longer among ``keys()``.
  ///
  /// - Throws: ``PostgresStorageError`` (unwritable) when the server cannot be asked.
  public func removeValue(forKey key: String) throws {
    let logger = Logger(label: "SharedStatePostgres")
    let notificationPrefix = hub.notifications.notificationPrefix(namespace: namespace, key: key)
    do {
      let deadline = hub.deadline()
      try hub.connections.withConnection(by: deadline) { connection in
        // One statement: the update takes the row's lock, so it is ordered with every
        // withLock on the key, and the notification is delivered on commit.
        _ = try connection.query(
          """
          WITH removed AS (
            UPDATE \(unescaped: PostgresConnectionHub.table) AS t SET value = NULL, version = t.version + 1 \
            WHERE t.namespace = \(namespace) AND t.key = \(key) AND t.value IS NOT NULL \
            RETURNING t.version
          ) SELECT version, pg_notify(\(PostgresConnectionHub.channel), \(notificationPrefix) || version::text || ']') \
          FROM removed
          """,
          logger: logger
        ).wait(on: connection, by: deadline)
      }
    } catch {
      throw PostgresStorageError(.unwritable, key: key, namespace: namespace, server: server, underlying: error)
    }
  }
}
