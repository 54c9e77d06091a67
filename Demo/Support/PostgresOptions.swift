import ArgumentParser
import SharedStatePostgres

/// `--postgres URL` and `--namespace NAME`: a namespace of the PostgreSQL table that holds the
/// values, instead of a file or a suite directory.
struct PostgresOptions: ParsableArguments {
  @Option(
    name: .customLong("postgres"),
    help: "A PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (or ...@/DATABASE?host=/socket/dir): the values live in its shared_state table (with --key)."
  )
  var url: String?

  @Option(help: "The namespace of the keys in PostgreSQL (with --postgres; default: \"default\").")
  var namespace: String?

  func validate() throws {
    guard let url else {
      if namespace != nil { throw ValidationError("--namespace needs --postgres.") }
      return
    }
    do {
      _ = try PostgresStore(url: url)
    } catch {
      throw ValidationError(String(describing: error))
    }
  }

  /// The store the options name, or `nil` without `--postgres`.
  var store: PostgresStore? {
    url.flatMap { try? PostgresStore(url: $0, namespace: namespace ?? "default") }
  }
}
