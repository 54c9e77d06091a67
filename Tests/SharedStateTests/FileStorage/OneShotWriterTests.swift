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
    let directory = try TemporaryDirectory()
    let arguments = place.enumerated().map { index, argument in
      index == 1 ? directory.path(argument) : argument
    }
    // The first write makes the target, its lock and its scratch file.
    #expect(try await demo(["increment"] + arguments + ["--times", "1"]).waitForExit() == 0)
    let watched = place[0] == "--file" ? directory.url.path : directory.path("suite")
    let events = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/inotifywait"),
      arguments: ["-m", "-e", "close_write", "--format", "%f", watched]
    )
    while !(try await events.nextErrorLine()).contains("established") {}
    let writer = try demo(["increment"] + arguments + ["--times", "1"])
    #expect(try await writer.allOutput(seconds: 60) == ["ok 1"])
    #expect(try await writer.waitForExit() == 0)
    // The end of what the writer caused, marked by a file of the test's own.
    try Data().write(to: URL(fileURLWithPath: watched + "/end"))
    var closed: [String] = []
    while true {
      let name = try await events.nextLine()
      if name == "end" { break }
      closed.append(name)
    }
    #expect(!closed.contains("counter.json"), "closed after writing: \(closed)")
    #expect(try await demo(["get"] + arguments).allOutput() == ["2"])
  }

  private func demo(_ arguments: [String]) throws -> DemoProcess {
    try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
  }
}
