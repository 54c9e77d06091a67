import Foundation
import Testing

/// A counter that `shared-demo increment` makes in a temporary directory, and what a later
/// increment of it raises in its directory, as `inotifywait` reports it: what the watchers of a
/// write see.
struct WatchedIncrement {
  let directory: TemporaryDirectory
  /// The demo's arguments for the counter: `--file PATH` or `--suite PATH --key NAME`.
  let arguments: [String]
  /// The directory that holds the counter's file.
  let watched: String

  /// Makes the counter with one increment.
  ///
  /// - Parameter place: `["--file", NAME]` or `["--suite", NAME, "--key", KEY]`: NAME is taken in
  ///   the temporary directory.
  init(_ place: [String]) async throws {
    directory = try TemporaryDirectory()
    let directory = directory
    arguments = place.enumerated().map { index, argument in
      index == 1 ? directory.path(argument) : argument
    }
    watched = place[0] == "--file" ? directory.url.path : directory.path(place[1])
    #expect(try await Self.demo(["increment"] + arguments + ["--times", "1"]).waitForExit() == 0)
  }

  /// Increments the counter `times` times in a process of its own while `inotifywait` watches
  /// its directory for `events` (in `inotifywait`'s terms), and returns the lines it printed
  /// for them, `EVENTS NAME` (such as `MOVED_TO counter.json`), up to a file the test makes
  /// once the increments are done.
  func events(_ events: [String], duringIncrements times: Int) async throws -> [String] {
    let watcher = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/inotifywait"),
      arguments: ["-m"] + events.flatMap { ["-e", $0] } + ["-e", "create", "--format", "%e %f", watched]
    )
    while !(try await watcher.nextErrorLine()).contains("established") {}
    let writer = try Self.demo(["increment"] + arguments + ["--times", String(times)])
    #expect(try await writer.allOutput(seconds: 60) == ["ok \(times)"])
    #expect(try await writer.waitForExit() == 0)
    // The end of what the writer caused, marked by a file of the test's own.
    try Data().write(to: URL(fileURLWithPath: watched + "/end"))
    var lines: [String] = []
    while true {
      let line = try await watcher.nextLine()
      if line.hasSuffix(" end") { return lines }
      lines.append(line)
    }
  }

  static func demo(_ arguments: [String]) throws -> DemoProcess {
    try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
  }
}
