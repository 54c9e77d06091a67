import XCTest

/// The bridge, in a child process whose main thread runs a real GLib main loop.
final class GLibMainActorTests: XCTestCase {
  /// `Task { @MainActor }` started on a background thread runs inside the loop (on the main
  /// thread, which owns the default context), within a millisecond at the median; and
  /// `DispatchQueue.main.async` runs there too. Without the bridge neither would ever run.
  func testMainActorWorkFromAnotherThreadRunsInsideTheLoop() throws {
    let probe = try RunningProgram(RunningProgram.built("SharedGLibProbe"), ["main-actor", "300"])
    defer { probe.terminate() }
    let report = ProbeLine(try probe.line(startingWith: "main-actor ", within: 30))
    XCTAssertEqual(report.integer("runs"), 300)
    XCTAssertEqual(report.integer("outside-loop"), 0, "every task ran inside the loop")
    XCTAssertLessThan(report.integer("p50_us"), 1_000, "median latency of an idle loop: \(report.words)")
    XCTAssertEqual(ProbeLine(try probe.line(startingWith: "main-queue ")).fields["owner"], "true")
    XCTAssertEqual(try probe.exit(), 0)
  }

  /// A loop with the bridge, the delivery and a watched file does nothing while nothing happens:
  /// over 5 idle seconds its threads wake up at most 100 times in all (seen: 15–18, a few timers
  /// of the process's own; a bridge that polled every 50 ms or faster would wake 100 times or
  /// more), and use at most 50 ms of CPU (1 %: a spinning thread would use 5 s). Wake-ups are
  /// counted, not only CPU time, because a wake-up count does not grow with the machine's load,
  /// where the CPU time of the same few wake-ups does (9.6 ms was seen on a loaded machine).
  func testAnIdleLoopWithTheBridgeUsesNoCPU() throws {
    let directory = try TemporaryDirectory()
    let probe = try RunningProgram(
      RunningProgram.built("SharedGLibProbe"), ["idle", "5", directory.path("value.json")]
    )
    defer { probe.terminate() }
    try probe.line(startingWith: "ready")
    let report = ProbeLine(try probe.line(startingWith: "idle ", within: 30))
    XCTAssertEqual(report.integer("seconds"), 5)
    let wakeUps = report.integer("wakeups")
    XCTAssertGreaterThanOrEqual(wakeUps, 0)
    XCTAssertLessThanOrEqual(wakeUps, 100, "wake-ups over 5 idle seconds: \(wakeUps)")
    let used = report.integer("cpu_us")
    XCTAssertGreaterThanOrEqual(used, 0)
    XCTAssertLessThanOrEqual(used, 50_000, "CPU time over 5 idle seconds: \(used) µs")
  }
}
