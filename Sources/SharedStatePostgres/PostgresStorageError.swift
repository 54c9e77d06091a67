import Foundation
import NIOCore
import NIOPosix
import PostgresNIO

/// Why a value kept in PostgreSQL could not be read, decoded or written.
///
/// Its description is one sentence that names the key, the namespace and the server, and says
/// what PostgreSQL (or the network) answered: `"The value of key "counter" in namespace
/// "default" could not be written to PostgreSQL at 127.0.0.1:5432: permission denied for table
/// shared_state (SQLSTATE 42501); it was not saved."` A key or a namespace longer than a few
/// dozen characters is cut short, with an ellipsis and its length (`"Jj0Q…" (2800
/// characters)`): the sentence stays one line's worth, whatever the key.
public struct PostgresStorageError: Error, CustomStringConvertible, Sendable {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// The row could not be read: the server cannot be reached, or refused the query.
    case unreadable
    /// The row holds JSON that does not decode as the declared type. It is left as it is until
    /// the program writes a new value.
    case undecodable
    /// The value could not be written. It was not saved, and it is never retried later.
    case unwritable
    /// The connection this process listens on was lost: the value is the last one received,
    /// and the library is reconnecting.
    case disconnected
    /// The namespace's keys could not be listed.
    case unlistable
    /// The key or its namespace is longer than PostgreSQL can keep, or holds a character it
    /// cannot hold (see <doc:Limits>). The library refused it before asking the
    /// server: nothing was read or written.
    case outsideLimits
  }

  /// What went wrong.
  public let kind: Kind
  /// The key, or `nil` for an error about a whole namespace.
  public let key: String?
  /// The namespace of the key.
  public let namespace: String
  /// The server, as `host:port` or the socket's path.
  public let server: String
  /// PostgreSQL's SQLSTATE code, when the server answered with an error.
  public let sqlState: String?
  /// The reason, as a phrase: what the server or the network said.
  public let reason: String
  /// A commit was sent and its answer never came (the server stopped answering, or the
  /// connection was lost while waiting): the server may have applied it.
  var isUnconfirmed = false

  init(_ kind: Kind, key: String?, namespace: String, server: String, underlying: any Error) {
    self.kind = kind
    self.key = key
    self.namespace = namespace
    self.server = server
    (reason, sqlState) = Self.explain(underlying)
  }

  /// One sentence.
  public var description: String {
    let subject =
      key.map { "The value of key \(Self.quoted($0)) in namespace \(Self.quoted(namespace))" }
      ?? "The keys of namespace \(Self.quoted(namespace))"
    switch kind {
    case .outsideLimits:
      let owner =
        key.map { "The key \(Self.quoted($0)) of namespace \(Self.quoted(namespace))" }
        ?? "The namespace \(Self.quoted(namespace))"
      return "\(owner) cannot be kept in PostgreSQL: \(reason); nothing was read or written."
    case .unreadable:
      return "\(subject) could not be read from PostgreSQL at \(server): \(reason)."
    case .undecodable:
      return "\(subject) in PostgreSQL at \(server) does not decode: \(reason); it is left as it is."
    case .unwritable where isUnconfirmed:
      return "\(subject) may not have been written to PostgreSQL at \(server): \(reason) before it confirmed the commit; the server may have saved it or not."
    case .unwritable:
      return "\(subject) could not be written to PostgreSQL at \(server): \(reason); it was not saved."
    case .disconnected:
      return "\(subject) may be out of date: the connection to PostgreSQL at \(server) was lost (\(reason)); reconnecting."
    case .unlistable:
      return "\(subject) could not be listed from PostgreSQL at \(server): \(reason)."
    }
  }

  /// `text` as Swift writes it in a literal (`"counter"`); when that takes more than 64
  /// characters, its first characters up to 48, an ellipsis and its length: `"Jj0Q…" (2800
  /// characters)`. A key of 2 000 characters would otherwise make a message of 2 000.
  static func quoted(_ text: String) -> String {
    let whole = String(reflecting: text)
    guard whole.count > 64 else { return whole }
    var shown = ""
    for character in text {
      // Each character as it is escaped inside the literal (`\n`, `\u{1}`, `\"`).
      let escaped = String(reflecting: String(character)).dropFirst().dropLast()
      guard shown.count + escaped.count <= 48 else { break }
      shown += escaped
    }
    return "\"\(shown)…\" (\(text.count) characters)"
  }

  /// Turns what postgres-nio or the network threw into a phrase (postgres-nio's own description
  /// hides the server's message on purpose) and the SQLSTATE.
  static func explain(_ error: any Error) -> (reason: String, sqlState: String?) {
    if let error = error as? PostgresStorageError { return (error.reason, error.sqlState) }
    if let error = error as? DecodingError { return (describe(error), nil) }
    // No answer while connecting (TCP, or the startup and authentication): the same sentence
    // as any other wait that ran out.
    if case let .connectTimeout(amount) = (error as? ChannelError) ?? ((error as? PSQLError)?.underlying as? ChannelError) {
      return (ServerTimeout(timeout: amount).description, nil)
    }
    if error is NIOConnectionError || error is IOError || error is ChannelError {
      return ("the server cannot be reached (\(connectionFailure(error)))", nil)
    }
    guard let error = error as? PSQLError else { return (String(describing: error), nil) }
    if let info = error.serverInfo, let message = info[.message] {
      let state = info[.sqlState]
      return (message + (state.map { " (SQLSTATE \($0))" } ?? ""), state)
    }
    switch error.code {
    case .connectionError:
      return ("the server cannot be reached (\(connectionFailure(error.underlying)))", nil)
    case .serverClosedConnection, .uncleanShutdown:
      return ("the server closed the connection", nil)
    case .clientClosedConnection:
      return ("the connection was closed", nil)
    case .authMechanismRequiresPassword:
      return ("the server asks for a password, and none was given (postgres://USER:PASSWORD@HOST/DATABASE)", nil)
    case .unsupportedAuthMechanism:
      return ("the server asks for an authentication method that postgres-nio does not support", nil)
    default:
      return ("\(error.code)" + (error.underlying.map { " (\($0))" } ?? ""), nil)
    }
  }

  /// "connection refused", rather than NIO's nested description of every attempt.
  private static func connectionFailure(_ error: (any Error)?) -> String {
    var error = error
    if let failures = error as? NIOConnectionError, let last = failures.connectionErrors.last {
      error = last.error
    }
    if let error = error as? IOError {
      return String(cString: strerror(error.errnoCode)).lowercased()
    }
    if case let .connectTimeout(amount) = error as? ChannelError {
      return "no answer within \(ServerTimeout.seconds(amount))"
    }
    return error.map { String(describing: $0) } ?? "no answer"
  }

  private static func describe(_ error: DecodingError) -> String {
    switch error {
    case let .typeMismatch(type, context), let .valueNotFound(type, context):
      return "expected \(type) at \(path(context)): \(context.debugDescription)"
    case let .keyNotFound(key, context):
      return "no value for \(String(reflecting: key.stringValue)) at \(path(context))"
    case let .dataCorrupted(context):
      return "\(context.debugDescription) at \(path(context))"
    @unknown default:
      return String(describing: error)
    }
  }

  private static func path(_ context: DecodingError.Context) -> String {
    context.codingPath.isEmpty ? "the top level" : context.codingPath.map(\.stringValue).joined(separator: ".")
  }
}
