import Logging
import PostgresNIO

/// One database transaction on one row, for a `withLock` of a ``PostgresKey``: on a connection of
/// its own, `BEGIN` and the row's lock, then either the write and `COMMIT`, or `ROLLBACK`. The
/// connection goes back to the pool after either, or is closed when anything failed.
///
/// Used on one thread from beginning to end, like the `PostgresKeyTransaction` that holds it.
final class RowTransaction {
  /// A commit that failed: nothing was committed, or (``isUnconfirmed``) nobody here knows.
  struct CommitFailure: Error {
    let underlying: any Error
    /// `COMMIT` was sent and no answer came: the server may have applied it.
    let isUnconfirmed: Bool
  }

  /// The row as it was when locked.
  let row: StoredRow
  private let connections: ConnectionPool
  private let logger: Logger
  /// The connection while the transaction is open; `nil` once it committed or rolled back.
  private var open: PostgresConnection?

  /// Takes a connection, begins a transaction on it and locks the row (creating it empty when
  /// missing). A connection that failed on the way is closed.
  init(
    namespace: String,
    key: String,
    connections: ConnectionPool,
    by deadline: Deadline,
    logger: Logger
  ) throws {
    let connection = try connections.takeConnection(by: deadline)
    do {
      try connections.ensureTable(on: connection, by: deadline)
      _ = try connection.query("BEGIN", logger: logger).wait(on: connection, by: deadline)
      row = try StoredRow.lock(namespace: namespace, key: key, on: connection, by: deadline, logger: logger)
    } catch {
      connection.closeInBackground()
      throw error
    }
    self.connections = connections
    self.logger = logger
    open = connection
  }

  /// Runs `write` on the transaction's connection, then commits; returns what `write` returned.
  /// Once the transaction has ended (a nested `withLock` committing a second time), `write` runs
  /// as one statement on a connection from the pool, after the first commit.
  ///
  /// - Throws: ``CommitFailure`` when the open transaction fails to write or to commit; any
  ///   error of a write after the end (the key reports both as a `PostgresStorageError`).
  func commit(by deadline: Deadline, writing write: (PostgresConnection) throws -> Int64) throws -> Int64 {
    guard let connection = open else {
      return try connections.withConnection(by: deadline, write)
    }
    open = nil
    var isCommitting = false
    do {
      let version = try write(connection)
      isCommitting = true
      _ = try connection.query("COMMIT", logger: logger).wait(on: connection, by: deadline)
      connections.giveBack(connection)
      return version
    } catch {
      connection.closeInBackground()
      // The server answered COMMIT with an error: it did not commit. Without an answer, nobody
      // here knows.
      throw CommitFailure(underlying: error, isUnconfirmed: isCommitting && (error as? PSQLError)?.serverInfo == nil)
    }
  }

  /// Rolls the transaction back unless it has ended.
  func rollBack(by deadline: Deadline) {
    guard let connection = open else { return }
    open = nil
    do {
      _ = try connection.query("ROLLBACK", logger: logger).wait(on: connection, by: deadline)
      connections.giveBack(connection)
    } catch {
      connection.closeInBackground()
    }
  }
}
