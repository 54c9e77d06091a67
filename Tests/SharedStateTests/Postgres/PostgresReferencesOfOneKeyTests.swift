import Foundation
import SharedState
import SharedStatePostgres
import Testing

/// One PostgreSQL key value serving two references (two dependency contexts): each keeps the
/// row's version it knows for itself, so neither misses another process's write and no
/// increment is lost. (Through one shared version, the second reference's transaction found
/// nothing new and wrote its stale value over the write.)
@Suite("PostgreSQL: references of one key value", .postgresInstalled)
struct PostgresReferencesOfOneKeyTests {
  @Test func twoReferencesOfOneKeyEachTakeInAnotherProcesssWrite() async throws {
    try await PostgresServer.withServer { server in
      let store = try PostgresStore(url: server.url)
      let key: PostgresKey<Int> = .postgres("counter", store: store)
      let first = sharedInAContextOfItsOwn(key)
      let second = sharedInAContextOfItsOwn(key)
      first.withLock { $0 = 0 }
      let firstValues = AsyncQueue(first.values)
      let secondValues = AsyncQueue(second.values)
      #expect(try await DemoProcess("set", "--postgres", server.url, "--key", "counter", "41").waitForExit(seconds: 120) == 0)
      #expect(try await firstValues.next(seconds: 60, where: { $0 == 41 }) == 41)
      #expect(try await secondValues.next(seconds: 60, where: { $0 == 41 }) == 41)
      first.withLock { $0 += 1 }
      second.withLock { $0 += 1 }
      #expect(first.saveError == nil && second.saveError == nil)
      #expect(try server.psql("SELECT value::text FROM shared_state WHERE key = 'counter'") == "43", "neither increment is lost")
    }
  }
}
