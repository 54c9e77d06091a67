import Foundation
import SharedState
import Testing

/// Invariant 11: other processes' changes reach observers where the program's UI code lives.
/// Each test runs `DeliveryProbe` (Tests/DeliveryProbe) in one of the shapes a program takes,
/// and writes from another process with `shared-demo`.
@Suite("Where other processes' changes arrive")
struct DeliveryTests {
  /// The probe the package built beside the tests.
  static let probe = DemoProcess.demoExecutable
    .deletingLastPathComponent()
    .appendingPathComponent("DeliveryProbe")

  private func set(_ file: String, _ value: Int) async throws {
    #expect(try await DemoProcess("set", "--file", file, String(value)).waitForExit() == 0)
  }

  @Test func aMainActorModelReceivesOtherProcessesChangesOnTheMainThread() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let model = try DemoProcess(executable: Self.probe, arguments: ["main-actor", file, "6"])
    #expect(try await model.nextLine() == "value 0 main")
    #expect(try await model.nextLine() == "ready")
    try await set(file, 5)
    #expect(try await model.nextLine() == "value 5 main")
    try await set(file, 6)
    #expect(try await model.nextLine() == "value 6 main")
    #expect(try await model.nextLine() == "deliveries 3")
    #expect(try await model.waitForExit() == 0)
  }

  @Test func aSynchronousProgramThatChoseImmediateDeliveryReceivesChanges() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let program = try DemoProcess(executable: Self.probe, arguments: ["immediate", file, "6"])
    #expect(try await program.nextLine() == "value 0 main")
    #expect(try await program.nextLine() == "ready")
    try await set(file, 5)
    #expect(try await program.nextLine() == "value 5 other")
    try await set(file, 6)
    #expect(try await program.nextLine() == "value 6 other")
    #expect(try await program.waitForExit() == 0)
  }

  /// The library's threads keep the program's scheduling policy (none switches per change), so
  /// that the program's code they run (observers, a delivery's `schedule`), and the threads it
  /// starts, run under the program's own policy, for a change and for a removal (which puts the
  /// placeholder back through the delivery). Only where the tests themselves run under the
  /// default policy, which the probe inherits.
  @Test(.enabled(if: sched_getscheduler(0) == 0 /* SCHED_OTHER */), arguments: ["immediate", "custom"])
  func programCodeOnTheLibrarysThreadsRunsUnderTheProgramsSchedulingPolicy(delivery: String) async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let program = try DemoProcess(executable: Self.probe, arguments: ["policies", file, delivery])
    #expect(try await program.nextLine() == "value 0 observer default started default")
    #expect(try await program.nextLine() == "ready library default")
    try await set(file, 5)
    // The value, then 0 once the file is removed: each line whatever the order of deliveries.
    var lines: [String] = []
    try await DemoProcess.shell("while [ \"$(cat '\(file)')\" != 5 ]; do sleep 0.01; done").waitForExit()
    try FileManager.default.removeItem(atPath: file)
    while true {
      let next = try await program.nextLine()
      if next.hasPrefix("after ") {
        #expect(next == "after library default")
        break
      }
      lines.append(next)
    }
    let five = lines.firstIndex(of: "value 5 observer default started default")
    let zero = lines.lastIndex(of: "value 0 observer default started default")
    #expect(five != nil && zero != nil && five! < zero!, "\(lines)")
    for other in lines where !other.hasPrefix("value 5 ") && !other.hasPrefix("value 0 ") {
      #expect(other == "schedule default", "\(lines)")
    }
    if delivery == "custom" { #expect(lines.contains("schedule default"), "\(lines)") }
    #expect(try await program.waitForExit() == 0)
  }

  @Test func aProgramWhoseMainQueueNeverRunsIsToldWhatToChoose() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let program = try DemoProcess(executable: Self.probe, arguments: ["blocked", file])
    defer { program.kill(SIGKILL) }
    #expect(try await program.nextLine() == "value 0 main")
    #expect(try await program.nextLine() == "ready")
    try await set(file, 5)
    // Within a few seconds, in one sentence, with the setting to use.
    let warning = try await program.nextErrorLine(seconds: 5)
    #expect(warning.contains("SharedChangeDelivery.default = .immediate"), "\(warning)")
    // Said as what it is, with `.immediate` only for a program without main-actor observers
    // (which Swift 6 would stop if they were called off the main actor).
    #expect(warning.contains("does not run"), "\(warning)")
    #expect(!warning.contains("busy"), "\(warning)")
    #expect(warning.contains("run the main queue"), "\(warning)")
    #expect(warning.contains("only if no observer of shared state is main-actor code"), "\(warning)")
  }

  /// A main actor busy for about 3 s is not a main queue that is never run: the program is told
  /// that the main actor is busy and that the change will arrive when it is free, never advised
  /// to deliver elsewhere (which would run `@MainActor` observers off the main actor), and the
  /// change does arrive, on the main actor. Three shapes: an async main whose main actor has run
  /// deliveries before (`busy`), a synchronous main that computes before it calls
  /// `dispatchMain()` (`busy-start`), and an async main that computes on the main actor before
  /// its first suspension (`busy-async-start`).
  @Test(arguments: ["busy", "busy-start", "busy-async-start"])
  func aBusyMainActorIsToldApartFromOneThatNeverRuns(mode: String) async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let program = try DemoProcess(executable: Self.probe, arguments: [mode, file])
    defer { program.kill(SIGKILL) }
    #expect(try await program.nextLine() == "value 0 main")
    #expect(try await program.nextLine() == "ready")
    try await set(file, 5)
    var last = 5
    if mode == "busy" {
      #expect(try await program.nextLine() == "value 5 main")
      #expect(try await program.nextLine() == "busy")
      // Arrives while the main actor computes (until it sees 6, then 3 s).
      try await set(file, 6)
      last = 6
    }
    let report = try await program.nextErrorLine(seconds: 30)
    #expect(report.contains("busy"), "\(report)")
    #expect(report.contains("will arrive when"), "\(report)")
    #expect(!report.contains(".immediate"), "\(report)")
    #expect(!report.contains("does not run"), "\(report)")
    #expect(try await program.nextLine(seconds: 60) == "free")
    #expect(try await program.nextLine() == "value \(last) main")
    if mode == "busy" { #expect(try await program.nextLine() == "deliveries 3") }
    #expect(try await program.waitForExit() == 0)
    // Told once, and nothing else.
    let more = try await program.allErrors()
    #expect(more.isEmpty, "\(more)")
  }

  @Test func aBurstEndsOnTheLastValueInOrderWithNoMoreDeliveriesThanWrites() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let model = try DemoProcess(executable: Self.probe, arguments: ["main-actor", file, "1000"])
    #expect(try await model.nextLine() == "value 0 main")
    #expect(try await model.nextLine() == "ready")
    let writer = try DemoProcess("increment", "--file", file, "--times", "1000")
    #expect(try await writer.allOutput(seconds: 120) == ["ok 1000"])
    var previous = 0
    var line = try await model.nextLine()
    while line.hasPrefix("value ") {
      let parts = line.split(separator: " ")
      let value = try #require(Int(parts[1]))
      #expect(value > previous, "\(value) after \(previous)")
      #expect(parts[2] == "main")
      previous = value
      line = try await model.nextLine()
    }
    #expect(previous == 1000)
    let deliveries = try #require(Int(line.dropFirst("deliveries ".count)))
    #expect(deliveries <= 1001, "the first value and at most one delivery per write")
    #expect(try await model.waitForExit() == 0)
  }
}
