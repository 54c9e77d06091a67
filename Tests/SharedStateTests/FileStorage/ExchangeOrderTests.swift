import Foundation
import Testing

/// What a write's exchange tells the watchers of the directory first: the target's move, not the
/// scratch file's. Each event wakes every watcher; a watcher woken by a first event about the
/// scratch file (a companion, dropped at once) often slept again before the target's events were
/// queued, and was woken a second time for the same change.
@Suite("The order of a write's events")
struct ExchangeOrderTests {
  @Test(arguments: [["--file", "counter.json"], ["--suite", "suite", "--key", "counter"]])
  func theTargetsMoveComesFirst(_ place: [String]) async throws {
    // The first write makes the target (a rename); the ones after it exchange.
    let counter = try await WatchedIncrement(place)
    let seen = try await counter.events(["moved_from", "moved_to"], duringIncrements: 2)
    // Two exchanges, each reported as two moves: the target's name first in each.
    let moves = seen.filter { $0.hasPrefix("MOVED_") }
    #expect(moves.count == 8, "events: \(seen)")
    for start in stride(from: 0, to: moves.count, by: 4) {
      #expect(moves[start] == "MOVED_FROM counter.json", "events: \(seen)")
    }
  }
}
