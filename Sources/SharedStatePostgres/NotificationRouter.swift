import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The one listening connection of a hub (`LISTEN` on ``PostgresConnectionHub/channel``), shared
/// by every key of every namespace, and the keys it tells: each notification goes to the
/// listeners of its row, a lost connection to all of them.
///
/// The listening connection is kept alive: asked `SELECT 1` every half timeout and dropped when
/// the answer does not come in time, reconnected after a delay when lost (50 ms, doubling up to
/// 2 s), and every listener told to reload once it listens again.
final class NotificationRouter: Sendable {
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

  /// Names this process's writes in notifications, so that they are not taken for others'.
  let writerID = UUID().uuidString
  /// Where listeners are told of changes: in order, and off the event loop (what a listener
  /// runs may make blocking calls, which must not be made on an event loop).
  let deliveries = DispatchQueue(label: "SharedStatePostgres.deliveries")
  private let connector: ServerConnector
  /// Closed when the listening connection is lost.
  private let connections: ConnectionPool
  private let logger: Logger
  private let state = NIOLockedValueBox(State())

  private struct State {
    var listeners: [Int: Listener] = [:]
    var nextListenerID = 0
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

  init(connector: ServerConnector, connections: ConnectionPool, logger: Logger) {
    self.connector = connector
    self.connections = connections
    self.logger = logger
  }

  private var eventLoop: any EventLoop { connector.eventLoop }

  // MARK: Listeners

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

  // MARK: Notifications

  /// The start of a notification payload for a write by this process; the SQL appends the new
  /// version and the closing bracket.
  func notificationPrefix(namespace: String, key: String) -> String {
    let strings = [writerID, namespace, key]
    let data = (try? JSONSerialization.data(withJSONObject: strings, options: [.withoutEscapingSlashes])) ?? Data("[]".utf8)
    return String(decoding: data.dropLast(), as: UTF8.self) + ","
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

  // MARK: The listening connection

  private func connectListener() {
    let logger = logger
    connector.connect()
      .flatMap { [self] connection in
        connection.addListener(channel: PostgresConnectionHub.channel) { [weak self] _, notification in
          self?.received(notification.payload)
        }
        let listen = connection.query("LISTEN \(unescaped: PostgresConnectionHub.channel)", logger: logger)
        return answered(listen, on: connection)
          .map { _ in connection }
          .flatMapError { error in connection.close().flatMapThrowing { throw error } }
      }
      .whenComplete { [self] result in
        switch result {
        case let .success(connection):
          listening(on: connection)
        case let .failure(error):
          lost(error, listeningOn: nil)
        }
      }
  }

  /// The listening connection is set up: watch it, and have every key reload.
  private func listening(on connection: PostgresConnection) {
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
  }

  /// Asks the listening connection `SELECT 1` every half timeout: a server that stopped
  /// answering (a stopped process, a network that drops everything) sends no notification and
  /// closes nothing, and would leave every key silently out of date.
  private func checkHealth(of connection: PostgresConnection) {
    let logger = logger
    eventLoop.scheduleTask(in: .nanoseconds(connector.timeout.nanoseconds / 2)) { [weak self] in
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
    let timeout = connector.timeout
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
    let taken = state.withLockedValue { state -> (listeners: [Listener], delay: TimeAmount)? in
      switch (state.listening, connection) {
      case let (.listening(current), connection?) where current === connection: break
      case (.connecting, nil): break
      default: return nil
      }
      state.listening = .waiting
      return (Array(state.listeners.values), state.backoff.take())
    }
    guard let (listeners, delay) = taken else { return }
    connections.closeIdle()
    deliveries.async {
      for listener in listeners { listener.lost(error) }
    }
    eventLoop.scheduleTask(in: delay) { [weak self] in
      guard let self else { return }
      self.state.withLockedValue { $0.listening = .connecting }
      self.connectListener()
    }
  }
}
