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
    let directory = try TemporaryDirectory()
    let arguments = place.enumerated().map { index, argument in
      index == 1 ? directory.path(argument) : argument
    }
    // The first write makes the target (a rename); the ones after it exchange.
    #expect(try await demo(["increment"] + arguments + ["--times", "1"]).waitForExit() == 0)
    let watched = place[0] == "--file" ? directory.url.path : directory.path("suite")
    let events = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/inotifywait"),
      arguments: ["-m", "-e", "moved_from", "-e", "moved_to", "-e", "create", "--format", "%e %f", watched]
    )
    while !(try await events.nextErrorLine()).contains("established") {}
    let writer = try demo(["increment"] + arguments + ["--times", "2"])
    #expect(try await writer.allOutput(seconds: 60) == ["ok 2"])
    #expect(try await writer.waitForExit() == 0)
    // The end of what the writer caused, marked by a file of the test's own.
    try Data().write(to: URL(fileURLWithPath: watched + "/end"))
    var seen: [String] = []
    while true {
      let line = try await events.nextLine()
      if line.hasSuffix(" end") { break }
      seen.append(line)
    }
    // Two exchanges, each reported as two moves: the target's name first in each.
    let moves = seen.filter { $0.hasPrefix("MOVED_") }
    #expect(moves.count == 8, "events: \(seen)")
    for start in stride(from: 0, to: moves.count, by: 4) {
      #expect(moves[start] == "MOVED_FROM counter.json", "events: \(seen)")
    }
  }

  private func demo(_ arguments: [String]) throws -> DemoProcess {
    try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
  }
}
