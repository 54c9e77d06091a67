import Foundation
import PostgresNIO

/// Turns a connection URL into postgres-nio's configuration.
///
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or, for a Unix socket,
/// `postgres://USER@/DATABASE?host=/run/postgresql` (the directory of the socket; the port picks
/// the socket file `.s.PGSQL.PORT`). TLS is not used (`sslmode=disable` is the only mode).
enum PostgresURL {
  static func configuration(parsing string: String) throws(PostgresURLError) -> PostgresConnection.Configuration {
    guard let components = URLComponents(string: string),
      let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
    else {
      throw PostgresURLError(url: string, problem: "it is not a postgres:// URL")
    }
    let items = components.queryItems ?? []
    func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
    if let mode = item("sslmode"), mode != "disable" {
      throw PostgresURLError(url: string, problem: "sslmode=\(mode) is not supported (only sslmode=disable)")
    }
    guard let user = components.user.flatMap({ $0.removingPercentEncoding }) ?? item("user"), !user.isEmpty else {
      throw PostgresURLError(url: string, problem: "it names no user (postgres://USER@HOST/DATABASE)")
    }
    let password = components.password?.removingPercentEncoding ?? item("password")
    let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
    let database = path.isEmpty ? nil : path.removingPercentEncoding
    let port = components.port ?? 5432
    let host = components.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? item("host")
    guard let host else {
      throw PostgresURLError(url: string, problem: "it names no host (postgres://USER@HOST/DATABASE)")
    }
    if host.hasPrefix("/") {
      return PostgresConnection.Configuration(
        unixSocketPath: "\(host)/.s.PGSQL.\(port)",
        username: user,
        password: password,
        database: database
      )
    }
    return PostgresConnection.Configuration(
      host: host,
      port: port,
      username: user,
      password: password,
      database: database,
      tls: .disable
    )
  }
}

/// A connection URL that cannot be used.
public struct PostgresURLError: Error, CustomStringConvertible, Sendable {
  /// The URL as given (its password is not repeated in the description).
  public let url: String
  /// What is wrong with it.
  public let problem: String

  /// One sentence.
  public var description: String {
    "The PostgreSQL URL \(String(reflecting: redacted)) cannot be used: \(problem)."
  }

  private var redacted: String {
    guard var components = URLComponents(string: url), components.password != nil else { return url }
    components.password = "***"
    return components.string ?? url
  }
}
