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

  /// A loop with the bridge, the delivery and a watched file uses no CPU while nothing happens:
  /// at most 0.1 % over 5 s (5 ms), measured with getrusage inside the idle process.
  func testAnIdleLoopWithTheBridgeUsesNoCPU() throws {
    let directory = try TemporaryTestDirectory()
    let probe = try RunningProgram(
      RunningProgram.built("SharedGLibProbe"), ["idle", "5", directory.path("value.json")]
    )
    defer { probe.terminate() }
    try probe.line(startingWith: "ready")
    let report = ProbeLine(try probe.line(startingWith: "idle ", within: 30))
    XCTAssertEqual(report.integer("seconds"), 5)
    let used = report.integer("cpu_us")
    XCTAssertGreaterThanOrEqual(used, 0)
    XCTAssertLessThanOrEqual(used, 5_000, "CPU time over 5 idle seconds: \(used) µs")
  }
}
