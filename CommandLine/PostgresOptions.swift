import ArgumentParser
import SharedStatePostgres

/// `--postgres URL` and `--namespace NAME`: a namespace of the PostgreSQL table that holds the
/// values, instead of a file or a suite directory.
public struct PostgresOptions: ParsableArguments, Sendable {
  /// `--postgres URL`: the server.
  @Option(
    name: .customLong("postgres"),
    help: "A PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or ...@/DATABASE?host=/socket/dir): the values live in its shared_state table (with --key)."
  )
  public var url: String?

  /// `--namespace NAME`: the namespace of the keys.
  @Option(help: "The namespace of the keys in PostgreSQL (with --postgres; default: \"default\").")
  public var namespace: String?

  /// `--postgres-timeout SECONDS`: the longest any wait for the server lasts.
  @Option(
    name: .customLong("postgres-timeout"),
    help: "The longest any wait for the PostgreSQL server lasts, in seconds (with --postgres; default: 30): a server that stops answering makes a read or write fail with a sentence after it."
  )
  public var timeout: Double?

  /// Options as argument-parser makes them.
  public init() {}

  /// Checks the URL and the timeout, and that the other options come with `--postgres`.
  public func validate() throws {
    guard let url else {
      if namespace != nil { throw ValidationError("--namespace needs --postgres.") }
      if timeout != nil { throw ValidationError("--postgres-timeout needs --postgres.") }
      return
    }
    try Self.validate(timeout: timeout)
    do {
      _ = try PostgresStore(url: url)
    } catch {
      throw ValidationError(String(describing: error))
    }
  }

  /// The store the options name, or `nil` without `--postgres`.
  public var store: PostgresStore? {
    url.flatMap { try? Self.store(url: $0, namespace: namespace ?? "default", timeout: timeout) }
  }

  /// The store for a URL, a namespace and a timeout in seconds (`nil`: the default).
  ///
  /// - Throws: ``SharedStatePostgres/PostgresURLError`` for a URL that cannot be used.
  public static func store(url: String, namespace: String, timeout: Double?) throws -> PostgresStore {
    try PostgresStore(
      url: url,
      namespace: namespace,
      timeout: timeout.map { .milliseconds(max(1, Int64(($0 * 1000).rounded()))) } ?? PostgresStore.defaultTimeout
    )
  }

  /// Checks a `--postgres-timeout`: more than 0 seconds, at most a day.
  public static func validate(timeout: Double?) throws {
    if let timeout, !(timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--postgres-timeout must be more than 0 seconds and at most 86400.")
    }
  }
}
