import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The connections of one hub for reads and transactions: each operation takes one of its own,
/// and gives it back when it is healthy; a few are kept idle for the next.
///
/// Blocking calls wait on futures completed by NIO's threads, never on Swift concurrency's
/// threads, so a key may be used from a task without starving the pool; they must not be made
/// on an event loop.
final class ConnectionPool: Sendable {
  /// The most idle connections kept; more are closed when given back.
  private static let idleLimit = 4

  private let connector: ServerConnector
  private let logger: Logger
  private let state = NIOLockedValueBox(State())

  private struct State {
    var idle: [PostgresConnection] = []
    /// The table is known to exist: it is not looked for again.
    var tableExists = false
  }

  init(connector: ServerConnector, logger: Logger) {
    self.connector = connector
    self.logger = logger
  }

  /// Runs `body` on a connection of its own (taken from the idle ones, or new), blocking. A
  /// connection that failed is closed rather than reused. Creates the table when missing.
  func withConnection<R>(by deadline: Deadline, _ body: (PostgresConnection) throws -> R) throws -> R {
    let connection = try takeConnection(by: deadline)
    do {
      try ensureTable(on: connection, by: deadline)
      let result = try body(connection)
      giveBack(connection)
      return result
    } catch {
      connection.closeInBackground()
      throw error
    }
  }

  /// A connection of its own, for a transaction that spans several blocking steps.
  func takeConnection(by deadline: Deadline) throws -> PostgresConnection {
    while let idle = state.withLockedValue({ $0.idle.popLast() }) {
      if !idle.isClosed { return idle }
    }
    let connecting = connector.connect()
    do {
      return try connecting.wait(by: deadline)
    } catch let error as ServerTimeout {
      // It may still succeed: close it then.
      connecting.whenSuccess { $0.closeInBackground() }
      throw error
    }
  }

  /// Returns a connection that is idle and healthy, to be reused.
  func giveBack(_ connection: PostgresConnection) {
    guard !connection.isClosed else { return }
    let extra = state.withLockedValue { state -> PostgresConnection? in
      guard state.idle.count < Self.idleLimit else { return connection }
      state.idle.append(connection)
      return nil
    }
    extra?.closeInBackground()
  }

  /// Closes every idle connection: when the listening connection is lost, they are likely dead
  /// too.
  func closeIdle() {
    let idle = state.withLockedValue { state in
      defer { state.idle = [] }
      return state.idle
    }
    for connection in idle { connection.closeInBackground() }
  }

  /// Creates the table when it is missing. A role that may not create it is told so only when
  /// it is really missing: the check comes first.
  func ensureTable(on connection: PostgresConnection, by deadline: Deadline) throws {
    guard !state.withLockedValue({ $0.tableExists }) else { return }
    let table = PostgresConnectionHub.table
    if try !tableExists(on: connection, by: deadline) {
      do {
        _ = try connection.query(
          """
          CREATE TABLE IF NOT EXISTS \(unescaped: table) (
            namespace text NOT NULL,
            key text NOT NULL,
            value jsonb,
            version bigint NOT NULL,
            PRIMARY KEY (namespace, key)
          )
          """,
          logger: logger
        ).wait(on: connection, by: deadline)
      } catch {
        // Another process may have created it at the same moment. PostgreSQL then answers with
        // one of several errors, depending on how far the two creations had got (a duplicate
        // table, a duplicate type, a duplicate key in its catalog): so the table is looked for
        // again rather than the error told apart. Any other failure is the one reported.
        guard (try? tableExists(on: connection, by: deadline)) == true else { throw error }
      }
    }
    state.withLockedValue { $0.tableExists = true }
  }

  /// Whether the table is there, as this connection sees it now.
  private func tableExists(on connection: PostgresConnection, by deadline: Deadline) throws -> Bool {
    let exists = try connection.query("SELECT to_regclass(\(PostgresConnectionHub.table)) IS NOT NULL", logger: logger)
      .wait(on: connection, by: deadline)
    return try exists.rows.first?.decode(Bool.self) == true
  }
}
