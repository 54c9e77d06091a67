import Foundation
import SharedState
import SharedStatePostgres
import Testing

/// PostgreSQL keys shared by real processes (`shared-demo` workers), each test on a server of
/// its own.
@Suite("PostgreSQL across processes", .postgresInstalled)
struct PostgresMultiProcessTests {
  @Test func eightProcessesOfFiveHundredIncrementsEndAtFourThousand() async throws {
    try await PostgresServer.withServer { server in
      let workers = try (0..<8).map { _ in
        try DemoProcess("increment", "--postgres", server.url, "--key", "counter", "--times", "500")
      }
      for worker in workers {
        let output = try await worker.allOutput(seconds: 120)
        // What a failing worker said, so that a failure explains itself.
        let errors = try await worker.allErrors()
        #expect(output == ["ok 500"], "\(errors)")
        #expect(try await worker.waitForExit() == 0)
      }
      let total = try await DemoProcess("get", "--postgres", server.url, "--key", "counter").allOutput(seconds: 120)
      #expect(total == ["4000"])
      #expect(try server.psql("SELECT value::text || ' ' || version FROM shared_state WHERE key = 'counter'") == "4000 4000")
    }
  }

  /// Processes that start at once on a database without the table each create it, and all but
  /// one find it made meanwhile, with an error that depends on how far the two creations had got
  /// (it failed a worker of the test above once in a clean-clone run, and once in nine loaded
  /// runs: "type shared_state already exists"). Here another session creates the table and
  /// keeps it uncommitted until every worker's own creation waits for it, so that each worker's
  /// creation then fails: every worker must go on, and no increment is lost.
  @Test func workersWhoseCreationOfTheTableLosesARaceGoOn() async throws {
    try await PostgresServer.withServer { server in
      let workers = 4
      // Commits once `workers` sessions wait for its transaction, or after a minute.
      let creator = try DemoProcess.shell(
        """
        exec \(server.psqlPath) -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p \(server.port) -U postgres -d postgres <<'SQL'
        BEGIN;
        CREATE TABLE shared_state (
          namespace text NOT NULL, key text NOT NULL, value jsonb, version bigint NOT NULL, PRIMARY KEY (namespace, key)
        );
        DO $$ BEGIN
          WHILE (SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock') < \(workers)
            AND clock_timestamp() < now() + interval '60 seconds' LOOP
            PERFORM pg_sleep(0.01);
            -- A transaction keeps its first look at the sessions unless told to look again.
            PERFORM pg_stat_clear_snapshot();
          END LOOP;
        END $$;
        COMMIT;
        SQL
        """
      )
      try await server.waitFor("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")
      // An increment, as in the test above: it begins with a load, whose failure it reports.
      let incrementers = try (0..<workers).map { _ in
        try DemoProcess("increment", "--postgres", server.url, "--key", "counter")
      }
      for incrementer in incrementers {
        let errors = try await incrementer.allErrors(seconds: 120)
        #expect(try await incrementer.waitForExit() == 0, "\(errors)")
      }
      #expect(try await creator.waitForExit(seconds: 120) == 0)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'counter'") == "\(workers)")
    }
  }

  @Test func aChangeInOneProcessReachesAWatchingProcess() async throws {
    try await PostgresServer.withServer { server in
      let watcher = try DemoProcess("watch", "--postgres", server.url, "--namespace", "n1", "--key", "settings")
      #expect(try await watcher.nextLine().hasSuffix(" null"))
      let setter = try DemoProcess(
        "set", "--postgres", server.url, "--namespace", "n1", "--key", "settings", #"{"theme":"dark"}"#
      )
      #expect(try await setter.waitForExit() == 0)
      #expect(try await watcher.nextLine().hasSuffix(#" {"theme":"dark"}"#))

      // The same key name in another namespace is another value.
      let other = try DemoProcess("set", "--postgres", server.url, "--namespace", "n2", "--key", "settings", "1")
      #expect(try await other.waitForExit() == 0)
      // And an in-process `@Shared` of this namespace is seen too.
      let store = try PostgresStore(url: server.url, namespace: "n1")
      @Shared(.postgres("settings", store: store)) var settings: [String: String] = [:]
      #expect(settings == ["theme": "dark"])
      $settings.withLock { $0["theme"] = "light" }
      #expect($settings.saveError == nil)
      #expect(try await watcher.nextLine().hasSuffix(#" {"theme":"light"}"#))
      let keys = try await DemoProcess("keys", "--postgres", server.url, "--namespace", "n1").allOutput(seconds: 120)
      #expect(keys == ["settings"])
      watcher.kill(SIGTERM)
    }
  }

  @Test func anotherProcessesWriteReachesThisProcessValue() async throws {
    try await PostgresServer.withServer { server in
      let store = try PostgresStore(url: server.url)
      @Shared(.postgres("count", store: store)) var count = 0
      let changes = $count.values
      let setter = try DemoProcess("set", "--postgres", server.url, "--key", "count", "41")
      #expect(try await setter.waitForExit() == 0)
      let seen = try await first(2, of: changes)
      #expect(seen == [0, 41])
      $count.withLock { $0 += 1 }
      #expect(try await DemoProcess("get", "--postgres", server.url, "--key", "count").allOutput(seconds: 120) == ["42"])
    }
  }

  @Test func aServerRestartLosesNoReportedIncrementAndWatchersConverge() async throws {
    try await PostgresServer.withServer { server in
      // The counter exists before the watchers start, so that each prints a number first.
      #expect(try await DemoProcess("set", "--postgres", server.url, "--key", "counter", "0").waitForExit(seconds: 66) == 0)
      let watchers = try (0..<2).map { _ in
        try DemoProcess("watch", "--postgres", server.url, "--key", "counter")
      }
      for watcher in watchers { #expect(try await watcher.nextLine().hasSuffix(" 0")) }
      let workers = try (0..<4).map { _ in
        try DemoProcess(
          "increment", "--postgres", server.url, "--key", "counter", "--times", "100000", "--report-each"
        )
      }
      // Stop the server in the middle of the run, once every worker is under way.
      for worker in workers { _ = try await worker.nextLine(seconds: 61) }
      try server.stop()
      var reportedDone = 0
      var failed = 0
      for worker in workers {
        let lines = try await worker.allOutput(seconds: 120)
        let status = try await worker.waitForExit(seconds: 63)
        // Its first line was read above: `done 1`.
        let done = lines.compactMap { $0.hasPrefix("done ") ? Int($0.dropFirst(5)) : nil }.max() ?? 1
        reportedDone += done
        #expect(status == 1, "a worker of 100 000 increments cannot have finished")
        let errors = try await worker.allErrors(seconds: 120)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("PostgreSQL at 127.0.0.1") == true, "\(errors)")
        failed += 1
      }
      // The watchers said the connection was lost, and go on.
      for watcher in watchers {
        let error = try await watcher.nextErrorLine(seconds: 30)
        #expect(error.contains("the connection to PostgreSQL at 127.0.0.1"), "\(error)")
      }
      try server.start()
      // One more increment after the restart: every watcher must see the final value.
      let last = try DemoProcess("increment", "--postgres", server.url, "--key", "counter")
      #expect(try await last.allOutput(seconds: 120) == ["ok 1"])
      let final = try #require(Int(try await DemoProcess("get", "--postgres", server.url, "--key", "counter").allOutput(seconds: 120).first ?? ""))
      // Every increment reported done is stored; at most one per worker was cut off between
      // its commit and its report.
      #expect(final - 1 >= reportedDone)
      #expect(final - 1 <= reportedDone + failed)
      for watcher in watchers {
        try await withTimeout(seconds: 30) {
          while true {
            let line = try await watcher.nextLine(seconds: 30)
            if line.hasSuffix(" \(final)") { return }
          }
        }
        watcher.kill(SIGTERM)
      }
    }
  }

  @Test func anUndecodableRowIsKeptAndReportedUntilTheProgramWrites() async throws {
    try await PostgresServer.withServer { server in
      let store = try PostgresStore(url: server.url)
      @Shared(.postgres("number", store: store)) var number = 0
      $number.withLock { $0 = 5 }
      // Another process writes something that is not an integer.
      #expect(try await DemoProcess("set", "--postgres", server.url, "--key", "number", #""five""#).waitForExit() == 0)
      let shared = $number
      try await withTimeout(seconds: 10) {
        while shared.loadError == nil { try await Task.sleep(for: .milliseconds(5)) }
      }
      let error = try #require($number.loadError as? PostgresStorageError)
      #expect(error.kind == .undecodable)
      #expect(String(describing: error).contains("does not decode"))
      #expect(number == 5)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'number'") == #""five""#)
      // A process that opens it as an integer refuses it, and leaves it alone.
      let increment = try DemoProcess("increment", "--postgres", server.url, "--key", "number")
      #expect(try await increment.waitForExit() == 1)
      #expect(try await increment.allErrors(seconds: 120).first?.contains("does not decode") == true)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'number'") == #""five""#)
      // Writing on purpose replaces it.
      $number.withLock { $0 += 1 }
      #expect($number.saveError == nil)
      #expect($number.loadError == nil)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'number'") == "6")
    }
  }

  @Test func aRoleThatMayNotWriteGetsAClearSaveError() async throws {
    try await PostgresServer.withServer { server in
      #expect(try await DemoProcess("set", "--postgres", server.url, "--key", "counter", "3").waitForExit() == 0)
      try server.psql("CREATE ROLE reader LOGIN; GRANT SELECT ON shared_state TO reader")
      let reader = try PostgresStore(url: server.url(user: "reader"))
      @Shared(.postgres("counter", store: reader)) var counter = 0
      #expect(counter == 3)
      #expect($counter.loadError == nil)
      // The row cannot be locked: withLock does not run the closure on a value it could not
      // bring up to date.
      var ran = false
      $counter.withLock {
        ran = true
        $0 += 1
      }
      let error = try #require($counter.saveError as? PostgresStorageError)
      #expect(error.kind == .unwritable)
      #expect(error.sqlState == "42501")
      #expect(String(describing: error).contains("permission denied for table shared_state"))
      #expect(!ran)
      #expect(counter == 3)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'counter'") == "3")

      let increment = try DemoProcess("increment", "--postgres", server.url(user: "reader"), "--key", "counter")
      #expect(try await increment.waitForExit() == 1)
      let errors = try await increment.allErrors(seconds: 120)
      #expect(errors.first?.contains("could not be written to PostgreSQL") == true, "\(errors)")
      #expect(errors.first?.contains("permission denied") == true, "\(errors)")
    }
  }

  @Test func aServerThatCannotBeReachedIsOneClearSentence() async throws {
    try await PostgresServer.withServer { server in
      try server.stop()
      // Held until the test ends, so that no other test's server starts on the freed port.
      let heldPort = try server.holdPort()
      defer { close(heldPort) }
      let get = try DemoProcess("get", "--postgres", server.url, "--key", "counter")
      #expect(try await get.waitForExit() == 1)
      let errors = try await get.allErrors(seconds: 120)
      #expect(errors.count == 1)
      #expect(errors.first?.contains("could not be read from PostgreSQL at 127.0.0.1") == true, "\(errors)")
    }
  }
}
