import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Opens the connections of one hub to its server, with the settings that bound every wait on
/// them by the hub's timeout (see ``PostgresConnectionHub``).
final class ServerConnector: Sendable {
  /// The configuration given, with the timeouts of ``timeout`` added.
  let configuration: PostgresConnection.Configuration
  /// The longest any wait for the server lasts.
  let timeout: TimeAmount
  /// The event loop of every connection this connector opens, and of the hub's timers.
  let eventLoop: any EventLoop
  private let logger: Logger
  /// Numbers the connections, for postgres-nio's log.
  private let nextConnectionID = NIOLockedValueBox(0)

  init(configuration: PostgresConnection.Configuration, timeout: TimeAmount, logger: Logger) {
    self.configuration = Self.bounded(configuration, by: timeout)
    self.timeout = timeout
    self.logger = logger
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

  /// Opens a connection. Over TCP, the socket is made here, with keepalives and a user
  /// timeout, and handed to postgres-nio (which does not set them); a Unix socket is left to
  /// postgres-nio.
  func connect() -> EventLoopFuture<PostgresConnection> {
    let id = nextConnectionID.withLockedValue { next in
      defer { next += 1 }
      return next
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

  private static func isIPAddress(_ host: String) -> Bool {
    do {
      _ = try SocketAddress(ipAddress: host, port: 0)
      return true
    } catch {
      return false
    }
  }
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
