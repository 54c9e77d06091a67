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
///
/// No wait lasts longer than ``timeout``: every blocking step of one operation shares a
/// ``Deadline``; the server is asked to give up on a statement, and before it on a lock wait,
/// just before the timeout (so that a live server says why), and to end a session left idle
/// inside a transaction for longer than the timeout (a process stopped while it held a row's
/// lock); TCP keepalives and a user timeout find a peer that vanished from the network; and the
/// listening connection is asked `SELECT 1` every half timeout, and dropped when the answer does
/// not come in time.
final class PostgresConnectionHub: Sendable {
  /// The channel of every notification, and the table of every value.
  static let channel = "shared_state"
  static let table = "shared_state"

  /// The configuration given, with the timeouts of ``timeout`` added.
  let configuration: PostgresConnection.Configuration
  /// The longest any wait for the server lasts.
  let timeout: TimeAmount
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

  /// The one hub of this process for `configuration`'s server, user and database, and for
  /// `timeout` (the server's settings of a connection follow from it).
  static func shared(for configuration: PostgresConnection.Configuration, timeout: TimeAmount) -> PostgresConnectionHub {
    let identity = [
      configuration.host ?? "", configuration.port.map(String.init) ?? "",
      configuration.unixSocketPath ?? "", configuration.username, configuration.database ?? "",
      String(timeout.nanoseconds),
    ].joined(separator: "\u{0}")
    return hubs.withLockedValue { hubs in
      if let hub = hubs[identity] { return hub }
      let hub = PostgresConnectionHub(configuration: configuration, timeout: timeout)
      hubs[identity] = hub
      return hub
    }
  }

  private init(configuration: PostgresConnection.Configuration, timeout: TimeAmount) {
    self.configuration = Self.bounded(configuration, by: timeout)
    self.timeout = timeout
    if let path = configuration.unixSocketPath {
      server = path
    } else {
      server = "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
    }
    eventLoop = MultiThreadedEventLoopGroup.singleton.next()
  }

  /// `configuration` with a connect timeout no longer than `timeout`, and the server asked to
  /// bound statements, lock waits and sessions idle in a transaction (unless the configuration
  /// sets them already).
  private static func bounded(
    _ configuration: PostgresConnection.Configuration,
    by timeout: TimeAmount
  ) -> PostgresConnection.Configuration {
    var configuration = configuration
    configuration.options.connectTimeout = min(configuration.options.connectTimeout, timeout)
    let milliseconds = max(3, timeout.nanoseconds / 1_000_000)
    // Just before the client gives up (a tenth of the timeout, at most a second), so that a live
    // server names the reason; as late as that, so that a freeze of the server shorter than the
    // timeout cancels nothing when it ends (the server's timers run on while it is stopped). A
    // lock wait is one part of a statement: its own limit comes first, so that the server names
    // the lock.
    let margin = max(1, min(1000, milliseconds / 10))
    let settings = [
      ("statement_timeout", milliseconds - margin),
      ("lock_timeout", milliseconds - 2 * margin),
      ("idle_in_transaction_session_timeout", milliseconds),
    ]
    for (name, value) in settings where !configuration.options.additionalStartupParameters.contains(where: { $0.0 == name }) {
      configuration.options.additionalStartupParameters.append((name, String(value)))
    }
    return configuration
  }

  /// When the operation that starts now must have finished waiting.
  func deadline() -> Deadline {
    Deadline(instant: .now() + timeout, timeout: timeout)
  }

  private static func isIPAddress(_ host: String) -> Bool {
    do {
      _ = try SocketAddress(ipAddress: host, port: 0)
      return true
    } catch {
      return false
    }
  }

  // MARK: Connections for reads and transactions

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
    let connecting = connect()
    do {
      return try connecting.wait(by: deadline)
    } catch let error as ServerTimeout {
      // It may still succeed: close it then.
      connecting.whenSuccess { $0.closeInBackground() }
      throw error
    }
  }

  /// Opens a connection. Over TCP, the socket is made here, with keepalives and a user
  /// timeout, and handed to postgres-nio (which does not set them); a Unix socket is left to
  /// postgres-nio.
  private func connect() -> EventLoopFuture<PostgresConnection> {
    let id = state.withLockedValue { state in
      defer { state.nextConnectionID += 1 }
      return state.nextConnectionID
    }
    let configuration = configuration
    let logger = logger
    guard let host = configuration.host, let port = configuration.port else {
      return PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
    }
    let seconds = max(1, Int(timeout.nanoseconds / 1_000_000_000))
    let bootstrap = ClientBootstrap(group: eventLoop)
      .connectTimeout(configuration.options.connectTimeout)
      .channelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
      // Idle for half the timeout: probe every sixth, give up after three unanswered probes.
      .channelOption(ChannelOptions.tcpOption(.init(rawValue: TCP_KEEPIDLE)), value: max(1, seconds / 2))
      .channelOption(ChannelOptions.tcpOption(.init(rawValue: TCP_KEEPINTVL)), value: max(1, seconds / 6))
      .channelOption(ChannelOptions.tcpOption(.init(rawValue: TCP_KEEPCNT)), value: 3)
      // Data sent and not acknowledged for the whole timeout: the connection is dead.
      .channelOption(
        ChannelOptions.tcpOption(.init(rawValue: Int32(TCP_USER_TIMEOUT))),
        value: Int(clamping: max(1, min(timeout.nanoseconds / 1_000_000, Int64(Int32.max))))
      )
    let eventLoop = eventLoop
    return bootstrap.connect(host: host, port: port).flatMap { channel in
      var established = PostgresConnection.Configuration(
        establishedChannel: channel,
        tls: configuration.tls,
        username: configuration.username,
        password: configuration.password,
        database: configuration.database
      )
      established.options = configuration.options
      // postgres-nio names the server for TLS only when it makes the socket itself.
      if established.options.tlsServerName == nil, !Self.isIPAddress(host) {
        established.options.tlsServerName = host
      }
      return PostgresConnection.connect(on: eventLoop, configuration: established, id: id, logger: logger)
        .flatMapError { error in
          channel.close(promise: nil)
          return eventLoop.makeFailedFuture(error)
        }
    }
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
  func ensureTable(on connection: PostgresConnection, by deadline: Deadline) throws {
    guard !state.withLockedValue({ $0.tableExists }) else { return }
    let table = Self.table
    let exists = try connection.query("SELECT to_regclass(\(table)) IS NOT NULL", logger: logger)
      .wait(on: connection, by: deadline)
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
        ).wait(on: connection, by: deadline)
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
    let read = StoredRow.read(namespace: namespace, key: key, on: connection, logger: logger)
      .flatMapErrorThrowing { error in
        // The table does not exist yet: nothing is stored.
        if (error as? PSQLError)?.serverInfo?[.sqlState] == "42P01" { return nil }
        throw error
      }
    return answered(read, on: connection)
  }

  private func connectListener() {
    let logger = logger
    connect()
      .flatMap { [self] connection in
        connection.addListener(channel: Self.channel) { [weak self] _, notification in
          self?.received(notification.payload)
        }
        let listen = connection.query("LISTEN \(unescaped: Self.channel)", logger: logger)
        return answered(listen, on: connection)
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
            self?.lost(ConnectionLost(), listeningOn: connection)
          }
          checkHealth(of: connection)
          // Anything may have changed while nobody listened: reload everything.
          deliveries.async {
            for listener in listeners { listener.changed(nil) }
          }
        case let .failure(error):
          lost(error, listeningOn: nil)
        }
      }
  }

  /// Asks the listening connection `SELECT 1` every half timeout: a server that stopped
  /// answering (a stopped process, a network that drops everything) sends no notification and
  /// closes nothing, and would leave every key silently out of date.
  private func checkHealth(of connection: PostgresConnection) {
    let logger = logger
    eventLoop.scheduleTask(in: .nanoseconds(timeout.nanoseconds / 2)) { [weak self] in
      guard let self, self.isListening(on: connection) else { return }
      self.answered(connection.query("SELECT 1", logger: logger), on: connection).whenComplete { [weak self] result in
        switch result {
        case .success:
          self?.checkHealth(of: connection)
        case let .failure(error):
          self?.lost(error, listeningOn: connection)
          connection.closeInBackground()
        }
      }
    }
  }

  private func isListening(on connection: PostgresConnection) -> Bool {
    state.withLockedValue { state in
      guard case let .listening(current) = state.listening else { return false }
      return current === connection
    }
  }

  /// `future`, or a ``ServerTimeout`` when the server has not answered within the timeout: the
  /// listening connection is then reported lost for that reason, and closed (postgres-nio has
  /// no way to cancel one query).
  private func answered<Value: Sendable>(
    _ future: EventLoopFuture<Value>,
    on connection: PostgresConnection
  ) -> EventLoopFuture<Value> {
    let promise = eventLoop.makePromise(of: Value.self)
    let timeout = timeout
    let timer = eventLoop.scheduleTask(in: timeout) { [weak self] in
      let error = ServerTimeout(timeout: timeout)
      // First, so that what the closing makes fail is not taken for the reason.
      self?.lost(error, listeningOn: connection)
      promise.fail(error)
      connection.closeInBackground()
    }
    future.whenComplete { result in
      timer.cancel()
      // Ignored when the timer failed it first.
      promise.completeWith(result)
    }
    return promise.futureResult
  }

  /// The listening connection is gone (or could not be made): tell every key, drop the idle
  /// connections (they are likely dead too), and try again after a delay. `connection` is the
  /// listening connection that failed, or `nil` for an attempt to connect that failed; a
  /// connection that is no longer the listening one is already dealt with.
  private func lost(_ error: any Error, listeningOn connection: PostgresConnection?) {
    let taken = state.withLockedValue { state -> (listeners: [Listener], delay: TimeAmount, idle: [PostgresConnection])? in
      switch (state.listening, connection) {
      case let (.listening(current), connection?) where current === connection: break
      case (.connecting, nil): break
      default: return nil
      }
      state.listening = .waiting
      defer { state.idle = [] }
      return (Array(state.listeners.values), state.backoff.take(), state.idle)
    }
    guard let (listeners, delay, idle) = taken else { return }
    for connection in idle { connection.closeInBackground() }
    deliveries.async {
      for listener in listeners { listener.lost(error) }
    }
    eventLoop.scheduleTask(in: delay) { [weak self] in
      guard let self else { return }
      self.state.withLockedValue { $0.listening = .connecting }
      self.connectListener()
    }
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

/// When one operation must have finished waiting for the server, and the timeout it came from
/// (for the sentence that says it passed).
struct Deadline: Sendable {
  let instant: NIODeadline
  let timeout: TimeAmount

  /// The time left, at most `slice`; zero once passed.
  func remaining(atMost slice: TimeAmount) -> TimeAmount {
    max(.zero, min(slice, instant - .now()))
  }

  var hasPassed: Bool { instant <= .now() }
}

/// The server did not answer in time.
struct ServerTimeout: Error, CustomStringConvertible {
  let timeout: TimeAmount

  var description: String {
    "the server did not answer within \(Self.seconds(timeout)), and may be stopped, overloaded or out of reach"
  }

  /// `3 s`, `2.5 s`, `0.25 s`.
  static func seconds(_ amount: TimeAmount) -> String {
    let milliseconds = amount.nanoseconds / 1_000_000
    var text = String(milliseconds / 1000)
    if milliseconds % 1000 != 0 {
      var fraction = String(milliseconds % 1000)
      fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "." + fraction
    }
    return text + " s"
  }
}

extension EventLoopFuture where Value: Sendable {
  /// Waits for the result of a query on `connection`, and gives up when the connection closes
  /// first (postgres-nio was seen leaving a query's future pending for good when the server
  /// shut down under it) or when `deadline` passes (a server that stopped answering): then the
  /// connection is closed, and ``ServerTimeout`` thrown. No call of this library may wait
  /// forever.
  func wait(on connection: PostgresConnection, by deadline: Deadline) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    whenComplete { _ in done.signal() }
    while done.wait(timeout: .now() + .nanoseconds(Int(deadline.remaining(atMost: .milliseconds(100)).nanoseconds))) == .timedOut {
      if connection.isClosed {
        // One last look: it may have completed just as the connection closed.
        if done.wait(timeout: .now() + .milliseconds(100)) == .success { break }
        throw ConnectionLost()
      }
      if deadline.hasPassed {
        connection.closeInBackground()
        throw ServerTimeout(timeout: deadline.timeout)
      }
    }
    return try wait()
  }

  /// Waits for the result, and throws ``ServerTimeout`` when `deadline` passes first.
  func wait(by deadline: Deadline) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    whenComplete { _ in done.signal() }
    while done.wait(timeout: .now() + .nanoseconds(Int(deadline.remaining(atMost: .milliseconds(100)).nanoseconds))) == .timedOut {
      if deadline.hasPassed { throw ServerTimeout(timeout: deadline.timeout) }
    }
    return try wait()
  }
}
