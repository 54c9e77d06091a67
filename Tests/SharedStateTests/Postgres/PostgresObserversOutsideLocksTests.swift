import Foundation
import SharedState
import SharedStatePostgres
import Testing

/// Invariant 10 for PostgreSQL keys: a process's observers run after its transaction has
/// committed and released the row's lock. Real processes (`shared-demo increment` with an
/// observer of its own), each test on a server of its own. Serialized: the slow-observer test
/// times an increment, and the other's processes would otherwise share the cores.
/// `scripts/test.sh` runs the slow-observer test in a pass of its own, after the others.
@Suite("PostgreSQL observers run outside the row's lock", .serialized, .postgresInstalled)
struct PostgresObserversOutsideLocksTests {
  @Test func aSlowObserverInOneProcessHoldsUpNoOtherProcess() async throws {
    try await PostgresServer.withServer { server in
      // Opened and written first, so that what is timed is one transaction on a connection
      // already made, not connecting or creating the table.
      let store = try PostgresStore(url: server.url)
      @Shared(.postgres("counter", store: store)) var counter = 0
      $counter.withLock { $0 = 0 }
      let slow = try DemoProcess(
        "increment", "--postgres", server.url, "--key", "counter", "--observer-sleep-milliseconds", "2000"
      )
      // The other process has committed 1 and its observer is asleep for 2 s from now.
      #expect(try await slow.nextLine(seconds: 60) == "observer sleeping 1")
      let started = ContinuousClock.now
      $counter.withLock { $0 += 1 }
      let took = ContinuousClock.now - started
      print("An increment while another process's observer slept took \(took).")
      #expect(took < .milliseconds(100), "waited \(took) for the other process's observer")
      #expect(counter == 2)
      #expect($counter.saveError == nil)
      // Its observer may also hear of this process's 2 before it exits.
      let rest = try await slow.allOutput()
      #expect(rest.contains("ok 1"))
      #expect(Set(rest).isSubset(of: ["ok 1", "observer sleeping 2"]), "\(rest)")
      #expect(try await slow.waitForExit() == 0)
    }
  }

  @Test func processesWhoseObserversWriteEachOthersKeysNeverDeadlock() async throws {
    try await PostgresServer.withServer { server in
      for round in 0..<3 {
        let (x, y) = ("x\(round)", "y\(round)")
        let start = String(UInt64(Date().timeIntervalSince1970 * 1e9) + 500_000_000)
        // Each increments its own counter 300 times; on every change of it, its observer takes
        // the other counter in a withLock, and adds 1000 to it once.
        let workers = try [(x, y), (y, x)].map { own, other in
          try DemoProcess(
            "increment", "--postgres", server.url, "--key", own, "--times", "300", "--start-at", start,
            "--observer-target", other, "--observer-adds", "1000"
          )
        }
        for worker in workers {
          let output = try await worker.allOutput(seconds: 120)
          let errors = try await worker.allErrors(seconds: 10)
          #expect(output == ["ok 300"], "\(errors)")
        }
        let values = try server.psql(
          "SELECT string_agg(value::text, ' ' ORDER BY key) FROM shared_state WHERE key IN ('\(x)', '\(y)')"
        )
        #expect(values == "1300 1300")
      }
    }
  }
}
