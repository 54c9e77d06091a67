import Foundation
import Testing

/// What a program that writes once (`shared-state set`, a script's `increment`) leaves for the
/// watchers of the file: one replacement, and no close of a descriptor opened for writing at the
/// target name, which every watcher would have to take for a write in place and answer with a
/// full read of the file.
@Suite("A program that writes once")
struct OneShotWriterTests {
  @Test(arguments: [["--file", "counter.json"], ["--suite", "suite", "--key", "counter"]])
  func leavesNoCloseAfterWritingAtTheTarget(_ place: [String]) async throws {
    // The first write makes the target, its lock and its scratch file.
    let counter = try await WatchedIncrement(place)
    let closed = try await counter.events(["close_write"], duringIncrements: 1)
    #expect(!closed.contains { $0.hasSuffix(" counter.json") }, "closed after writing: \(closed)")
    #expect(try await WatchedIncrement.demo(["get"] + counter.arguments).allOutput() == ["2"])
  }
}
