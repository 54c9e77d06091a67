import Logging
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// Everything one process keeps for one server: the listening connection every key of every
/// namespace shares (``notifications``), a few connections for reads and transactions
/// (``connections``), and how both are opened (``ServerConnector``).
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

  /// The longest any wait for the server lasts.
  let timeout: TimeAmount
  /// `host:port` or the socket path, for messages.
  let server: String
  /// The connections for reads and transactions.
  let connections: ConnectionPool
  /// The listening connection, and the keys it tells of other processes' writes.
  let notifications: NotificationRouter

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
    self.timeout = timeout
    if let path = configuration.unixSocketPath {
      server = path
    } else {
      server = "\(configuration.host ?? "localhost"):\(configuration.port ?? 5432)"
    }
    let logger = Logger(label: "SharedStatePostgres")
    let connector = ServerConnector(configuration: configuration, timeout: timeout, logger: logger)
    connections = ConnectionPool(connector: connector, logger: logger)
    notifications = NotificationRouter(connector: connector, connections: connections, logger: logger)
  }

  /// When the operation that starts now must have finished waiting.
  func deadline() -> Deadline {
    Deadline(instant: .now() + timeout, timeout: timeout)
  }
}
