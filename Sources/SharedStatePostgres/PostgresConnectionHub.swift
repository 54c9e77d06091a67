import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Everything one process keeps for one server: the listening connection every key of every
/// namespace shares, a few connections for reads and transactions, and the keys to tell.
///
/// Blocking calls (`withConnection`) wait on futures completed by NIO's threads, never on Swift
/// concurrency's threads, so a key may be used from a task without starving the pool; they must
/// not be made on an event loop (deliveries run on a queue of their own for that reason).
final class PostgresConnectionHub: Sendable {
  /// The channel of every notification, and the table of every value.
  static let channel = "shared_state"
  static let table = "shared_state"

  let configuration: PostgresConnection.Configuration
  /// `host:port` or the socket path, for messages.
  let server: String
  /// Names this process's writes in notifications, so that they are not taken for others'.
  let writerID = UUID().uuidString
  /// Where subscribers are told of changes: off the event loop, in order.
  let deliveries = DispatchQueue(label: "SharedStatePostgres.deliveries")
  private let eventLoop: any EventLoop
  private let logger = Logger(label: "SharedStatePostgres")
  private let state = NIOLockedValueBox(State())

  private struct State {
    var idle: [PostgresConnection] = []
    var tableExists = false
    var listeners: [Int: Listener] = [:]
    var nextListenerID = 0
    var nextConnectionID = 0
    var listening: Listening = .stopped
    var backoff = Backoff()
  }

  private enum Listening {
    case stopped
    case connecting
    case listening(PostgresConnection)
    case waiting
  }

  /// Reconnection delays: 50 ms, doubling up to 2 s, back to 50 ms after a success.
  private struct Backoff {
    var next: TimeAmount = .milliseconds(50)
    mutating func take() -> TimeAmount {
      defer { next = min(next * 2, .seconds(2)) }
      return next
    }
  }

  /// A key's interest in the notifications about one row.
  struct Listener: Sendable {
    let namespace: String
    let key: String
    /// Another process wrote version `version` (`nil`: the listening connection is back, or was
    /// just set up: reload and compare).
    let changed: @Sendable (_ version: Int64?) -> Void
    /// The listening connection was lost.
    let lost: @Sendable (_ error: any Error) -> Void
  }

  private static let hubs = NIOLockedValueBox([String: PostgresConnectionHub]())

  /// The one hub of this process for `configuration`'s server, user and database.
  static func shared(for configuration: PostgresConnection.Configuration) -> PostgresConnectionHub {
    let identity = [
      configuration.host ?? "", configuration.port.map(String.init) ?? "",
      configuration.unixSocketPath ?? "", configuration.username, configuration.database ?? "",
    ].joined(separator: "\u{0}")
    return hubs.withLockedValue { hubs in
      if let hub = hubs[identity] { return hub }
      let hub = PostgresConnectionHub(configuration: configuration)
      hubs[identity] = hub
      return hub
    }
  }

  private init(configuration: PostgresConnection.Configuration) {
    self.configuration = configuration
    if let path = configuration.unixSocketPath {
      server = path
    } else {
      server = "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
    }
    eventLoop = MultiThreadedEventLoopGroup.singleton.next()
  }

  // MARK: Connections for reads and transactions

  /// Runs `body` on a connection of its own (taken from the idle ones, or new), blocking. A
  /// connection that failed is closed rather than reused. Creates the table when missing.
  func withConnection<R>(_ body: (PostgresConnection) throws -> R) throws -> R {
    let connection = try takeConnection()
    do {
      try ensureTable(on: connection)
      let result = try body(connection)
      giveBack(connection)
      return result
    } catch {
      connection.closeInBackground()
      throw error
    }
  }

  /// A connection of its own, for a transaction that spans several blocking steps.
  func takeConnection() throws -> PostgresConnection {
    while let idle = state.withLockedValue({ $0.idle.popLast() }) {
      if !idle.isClosed { return idle }
    }
    let id = state.withLockedValue { state in
      defer { state.nextConnectionID += 1 }
      return state.nextConnectionID
    }
    return try PostgresConnection.connect(
      on: eventLoop, configuration: configuration, id: id, logger: logger
    ).wait()
  }

  /// Returns a connection that is idle and healthy, to be reused.
  func giveBack(_ connection: PostgresConnection) {
    guard !connection.isClosed else { return }
    let extra = state.withLockedValue { state -> PostgresConnection? in
      guard state.idle.count < 4 else { return connection }
      state.idle.append(connection)
      return nil
    }
    extra?.closeInBackground()
  }

  /// Creates the table when it is missing. A role that may not create it is told so only when
  /// it is really missing: the check comes first.
  func ensureTable(on connection: PostgresConnection) throws {
    guard !state.withLockedValue({ $0.tableExists }) else { return }
    let table = Self.table
    let exists = try connection.query("SELECT to_regclass(\(table)) IS NOT NULL", logger: logger).wait(on: connection)
    if try exists.rows.first?.decode(Bool.self) != true {
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
        ).wait(on: connection)
      } catch let error as PSQLError where ["23505", "42P07"].contains(error.serverInfo?[.sqlState]) {
        // Another process created it at the same moment.
      }
    }
    state.withLockedValue { $0.tableExists = true }
  }

  // MARK: Listening

  /// Tells `listener` of every change to its row until the returned cancellation runs; starts
  /// the listening connection when it is the first.
  func addListener(_ listener: Listener) -> @Sendable () -> Void {
    let (id, start, isListening) = state.withLockedValue { state in
      defer { state.nextListenerID += 1 }
      state.listeners[state.nextListenerID] = listener
      var start = false
      if case .stopped = state.listening {
        state.listening = .connecting
        start = true
      }
      var isListening = false
      if case .listening = state.listening { isListening = true }
      return (state.nextListenerID, start, isListening)
    }
    if start { connectListener() }
    // Already listening: catch up with a change made since the key loaded.
    if isListening { deliveries.async { listener.changed(nil) } }
    return { [self] in
      state.withLockedValue { _ = $0.listeners.removeValue(forKey: id) }
    }
  }

  /// Reads one row on the listening connection, for a listener told of a change.
  func readForListener(namespace: String, key: String) -> EventLoopFuture<StoredRow?> {
    let connection = state.withLockedValue { state -> PostgresConnection? in
      guard case let .listening(connection) = state.listening else { return nil }
      return connection
    }
    guard let connection else {
      return eventLoop.makeFailedFuture(ConnectionLost())
    }
    return StoredRow.read(namespace: namespace, key: key, on: connection, logger: logger)
      .flatMapErrorThrowing { error in
        // The table does not exist yet: nothing is stored.
        if (error as? PSQLError)?.serverInfo?[.sqlState] == "42P01" { return nil }
        throw error
      }
  }

  private func connectListener() {
    let id = state.withLockedValue { state in
      defer { state.nextConnectionID += 1 }
      return state.nextConnectionID
    }
    PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
      .flatMap { [self] connection in
        connection.addListener(channel: Self.channel) { [weak self] _, notification in
          self?.received(notification.payload)
        }
        return connection.query("LISTEN \(unescaped: Self.channel)", logger: logger)
          .map { _ in connection }
          .flatMapError { error in connection.close().flatMapThrowing { throw error } }
      }
      .whenComplete { [self] result in
        switch result {
        case let .success(connection):
          let listeners = state.withLockedValue { state in
            state.listening = .listening(connection)
            state.backoff = Backoff()
            return Array(state.listeners.values)
          }
          connection.closeFuture.whenComplete { [weak self] _ in
            self?.lost(ConnectionLost())
          }
          // Anything may have changed while nobody listened: reload everything.
          deliveries.async {
            for listener in listeners { listener.changed(nil) }
          }
        case let .failure(error):
          lost(error)
        }
      }
  }

  /// The listening connection is gone (or could not be made): tell every key, drop the idle
  /// connections (they are likely dead too), and try again after a delay.
  private func lost(_ error: any Error) {
    let (listeners, delay, idle) = state.withLockedValue { state in
      state.listening = .waiting
      defer { state.idle = [] }
      return (Array(state.listeners.values), state.backoff.take(), state.idle)
    }
    for connection in idle { connection.closeInBackground() }
    deliveries.async {
      for listener in listeners { listener.lost(error) }
    }
    eventLoop.scheduleTask(in: delay) { [weak self] in self?.connectListener() }
  }

  /// A notification: `["writer", "namespace", "key", version]`.
  private func received(_ payload: String) {
    guard let fields = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [Any],
      fields.count == 4,
      let writer = fields[0] as? String, let namespace = fields[1] as? String,
      let key = fields[2] as? String, let version = (fields[3] as? NSNumber)?.int64Value
    else { return }
    // This process's own write: its reference already holds the value.
    guard writer != writerID else { return }
    let listeners = state.withLockedValue { state in
      state.listeners.values.filter { $0.namespace == namespace && $0.key == key }
    }
    guard !listeners.isEmpty else { return }
    deliveries.async {
      for listener in listeners { listener.changed(version) }
    }
  }

  /// The start of a notification payload for a write by this process; the SQL appends the new
  /// version and the closing bracket.
  func notificationPrefix(namespace: String, key: String) -> String {
    let strings = [writerID, namespace, key]
    let data = (try? JSONSerialization.data(withJSONObject: strings, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
    return String(decoding: data.dropLast(), as: UTF8.self) + ","
  }
}

/// The listening connection closed, or there is none right now.
struct ConnectionLost: Error, CustomStringConvertible {
  var description: String { "the server closed the connection" }
}

extension PostgresConnection {
  /// Closes the connection without waiting: for a connection that failed or is no longer
  /// wanted.
  /// postgres-nio asserts that a connection is closed before it is released, so the
  /// completion keeps it alive until then.
  func closeInBackground() {
    let closed: EventLoopFuture<Void> = close()
    closed.whenComplete { _ in withExtendedLifetime(self) {} }
  }
}

extension EventLoopFuture where Value: Sendable {
  /// Waits for the result of a query on `connection`, and gives up when the connection closes
  /// first: postgres-nio was seen leaving a query's future pending for good when the server
  /// shut down under it, and no call of this library may wait forever.
  func wait(on connection: PostgresConnection) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    whenComplete { _ in done.signal() }
    while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
      if connection.isClosed {
        // One last look: it may have completed just as the connection closed.
        if done.wait(timeout: .now() + .milliseconds(100)) == .success { break }
        throw ConnectionLost()
      }
    }
    return try wait()
  }
}
