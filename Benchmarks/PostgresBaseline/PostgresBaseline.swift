// The benchmark's baseline: the counter transaction that `withLock { $0 += 1 }` runs on a
// PostgreSQL key, written directly against postgres-nio, with nothing of SharedState around
// it. scripts/bench/postgres.sh runs it beside `shared-demo increment --postgres`.
//
// usage: postgres-baseline HOST PORT USER DATABASE KEY TIMES [START-AT-UNIX-NS]
import Foundation
import Logging
import PostgresNIO

@main
enum PostgresBaseline {
  static func main() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 7, let port = Int(arguments[2]), let times = Int(arguments[6]) else {
      FileHandle.standardError.write(Data("usage: postgres-baseline HOST PORT USER DATABASE KEY TIMES [START-AT-UNIX-NS]\n".utf8))
      exit(2)
    }
    let (host, user, database, key) = (arguments[1], arguments[3], arguments[4], arguments[5])
    let startAt = arguments.count > 7 ? UInt64(arguments[7]) : nil
    let logger = Logger(label: "postgres-baseline")

    let connection = try await PostgresConnection.connect(
      configuration: .init(host: host, port: port, username: user, password: nil, database: database, tls: .disable),
      id: 1,
      logger: logger
    )
    if let startAt {
      let now = UInt64(Date().timeIntervalSince1970 * 1e9)
      if startAt > now { try await Task.sleep(nanoseconds: startAt - now) }
    }
    let namespace = "default"
    let prefix = #"["baseline-\#(getpid())","default",\#(String(reflecting: key)),"#
    for _ in 0..<times {
      _ = try await connection.query("BEGIN", logger: logger)
      let rows = try await connection.query(
        "SELECT value::text, version FROM shared_state WHERE namespace = \(namespace) AND key = \(key) FOR UPDATE",
        logger: logger
      )
      var value = 0
      for try await (json, _) in rows.decode((String?, Int64).self) {
        value = json.flatMap { Int($0) } ?? 0
      }
      let json = String(value + 1)
      _ = try await connection.query(
        """
        WITH written AS (
          INSERT INTO shared_state AS t (namespace, key, value, version) VALUES (\(namespace), \(key), \(json)::jsonb, 1)
          ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, version = t.version + 1
          RETURNING t.version
        ) SELECT version, pg_notify('shared_state', \(prefix) || version::text || ']') FROM written
        """,
        logger: logger
      )
      _ = try await connection.query("COMMIT", logger: logger)
    }
    try await connection.close()
    print("ok \(times)")
  }
}
