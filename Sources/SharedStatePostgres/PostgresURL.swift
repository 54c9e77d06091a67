import Foundation
import PostgresNIO

/// Turns a connection URL into postgres-nio's configuration.
///
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or, for a Unix socket,
/// `postgres://USER@/DATABASE?host=/run/postgresql` (the directory of the socket; the port picks
/// the socket file `.s.PGSQL.PORT`). `?user=` and `?password=` may stand for the user and
/// password of the authority. TLS is not used (`sslmode=disable` is the only mode).
///
/// No error says the password: a URL is repeated only through ``redacted(_:)``.
enum PostgresURL {
  static func configuration(parsing string: String) throws(PostgresURLError) -> PostgresConnection.Configuration {
    guard let components = URLComponents(string: string) else {
      throw PostgresURLError(
        url: string,
        problem: "it cannot be parsed as a URL (a user or password with characters such as / ? # @ : must be percent-encoded, and a port must be a number)"
      )
    }
    guard let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
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
    // A port that does not fit in 16 bits would be cut to its low bits by the socket layer, and
    // connect to another port without a word.
    guard (1...65535).contains(port) else {
      throw PostgresURLError(url: string, problem: "port \(port) is not a TCP port (1 to 65535)")
    }
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

  /// `string` with every password it may hold replaced by `***`, whether or not it parses as a
  /// URL: the part of the authority after the user (`USER:***@HOST`), and the value of every
  /// `password=` (in a query, or in a `key=value` connection string given by mistake).
  ///
  /// It errs on the side of hiding: in a string that does not parse, everything between the
  /// scheme and the last `@` after the first `:` is taken for a password.
  static func redacted(_ string: String) -> String {
    // A URL that parses: exactly its password and its `password` query items.
    if var components = URLComponents(string: string), components.scheme != nil, components.host != nil {
      if components.password != nil { components.percentEncodedPassword = "***" }
      if let items = components.percentEncodedQueryItems {
        components.percentEncodedQueryItems = items.map { item in
          item.name.lowercased() == "password" ? URLQueryItem(name: item.name, value: "***") : item
        }
      }
      if let redacted = components.string { return redacted }
    }
    return heuristicallyRedacted(string)
  }

  private static func heuristicallyRedacted(_ string: String) -> String {
    var text = Substring(string)
    var result = ""
    // Every `password=VALUE`, whatever the case of the name: the value ends at `&`, `#`, a
    // space or the end. First, so that an `@` in such a value is gone before the authority is
    // looked for.
    while let range = text.range(of: "password=", options: .caseInsensitive) {
      result += text[..<range.upperBound]
      text = text[range.upperBound...]
      let end = text.firstIndex { "&# \t\n".contains($0) } ?? text.endIndex
      if end > text.startIndex { result += "***" }
      text = text[end...]
    }
    result += text
    // The authority's user information: after `://` (or from the start, for a string without
    // a scheme) up to the last `@`; what follows its first `:` is the password.
    let start = result.range(of: "://")?.upperBound ?? result.startIndex
    guard let at = result[start...].lastIndex(of: "@"),
      let colon = result[start..<at].firstIndex(of: ":")
    else { return result }
    let afterColon = result.index(after: colon)
    guard afterColon < at else { return result }
    return String(result[..<afterColon]) + "***" + result[at...]
  }
}

/// A connection URL that cannot be used.
///
/// Neither its ``url`` nor its ``description`` holds the password: a password in the user
/// information or in `?password=` is replaced by `***`, also in a URL that does not parse.
public struct PostgresURLError: Error, CustomStringConvertible, Sendable {
  /// The URL as given, with any password replaced by `***`.
  public let url: String
  /// What is wrong with it.
  public let problem: String

  init(url: String, problem: String) {
    self.url = PostgresURL.redacted(url)
    self.problem = problem
  }

  /// One sentence.
  public var description: String {
    "The PostgreSQL URL \(String(reflecting: url)) cannot be used: \(problem)."
  }
}
