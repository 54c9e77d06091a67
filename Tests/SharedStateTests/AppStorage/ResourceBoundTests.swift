import Foundation
@testable import SharedState
import Testing

/// What a program with many keys keeps of the system's resources: descriptors within a share of
/// its limit on open files, and no memory mapping per idle key. Each test runs the
/// `resource-probe` child program (Tests/ResourceProbe), so that limits and counts are those of
/// a process of its own.
@Suite("Resource bounds")
struct ResourceBoundTests {
  /// `ResourceProbe`, built beside the tests.
  private static let probe = URL(fileURLWithPath: CommandLine.arguments[0])
    .deletingLastPathComponent()
    .appendingPathComponent("ResourceProbe").path

  /// Under `ulimit -n 256`, a program with 1 000 keys increments each of them, every value and
  /// file is right, and the program can still open half its limit for itself.
  @Test func aThousandKeysUnderALowDescriptorLimitAllWorkAndLeaveTheProgramItsDescriptors() async throws {
    let directory = try TemporaryDirectory()
    let probe = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/prlimit"),
      arguments: ["--nofile=256:256", Self.probe, "descriptors", directory.url.path, "1000", "128"]
    )
    let output = try await probe.allOutput(seconds: 300)
    #expect(output.first == "keys 1000 failed 0", "\(output.prefix(7))")
    #expect(output.contains("own 128"), "\(output)")
    #expect(try await probe.waitForExit() == 0)
  }

  /// Each key opened in a new suite stores its default: the page that transaction maps, and its
  /// descriptors, are let go afterwards, except for the few keys the descriptor budget keeps
  /// them for (128 at most).
  @Test func keysWhoseDefaultWasStoredKeepNoMappingOrDescriptorEach() async throws {
    let directory = try TemporaryDirectory()
    let none = try await Self.opened(0, in: directory.path("empty"))
    let many = try await Self.opened(1000, in: directory.path("many"))
    // At most 128 pages kept, plus what the process's threads and allocator map, which varies
    // with the machine's load (160–210 in all seen on two cores); one mapping per key would be
    // over 1 000.
    #expect(many.mappings - none.mappings < 500, "mappings: \(none.mappings) with no key, \(many.mappings) with 1000")
    #expect(many.descriptors - none.descriptors <= 3 * 128 + 8, "descriptors: \(none.descriptors), then \(many.descriptors)")
    let stored = try String(contentsOfFile: directory.path("many/key-999.json"), encoding: .utf8)
    #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == "999", "the default is stored")
  }

  /// Under a limit of 32 open files no path has a place in the descriptor budget: such a process
  /// opens its files in each transaction and maps no page between them. Beside processes that
  /// keep theirs, it loses no increment and sees every change.
  @Test func processesWithoutDescriptorsKeptIncrementAndWatchBesideOthers() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.url.path
    let watcher = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/prlimit"),
      arguments: [
        "--nofile=32:32", DemoProcess.demoExecutable.path, "watch", "--suite", suite, "--key", "counter",
        "--integer", "--changes", "400", "--timeout", "240",
      ]
    )
    #expect(try await watcher.nextLine().hasSuffix(" 0"))
    let workers = try (0..<4).map { index in
      let increment = ["increment", "--suite", suite, "--key", "counter", "--times", "100"]
      return index.isMultiple(of: 2)
        ? try DemoProcess(
          executable: URL(fileURLWithPath: "/usr/bin/prlimit"),
          arguments: ["--nofile=32:32", DemoProcess.demoExecutable.path] + increment
        )
        : try DemoProcess(executable: DemoProcess.demoExecutable, arguments: increment)
    }
    for worker in workers {
      #expect(try await worker.allOutput(seconds: 300) == ["ok 100"])
    }
    #expect(try await DemoProcess("get", "--suite", suite, "--key", "counter").allOutput() == ["400"])
    // Changes are hints that coalesce: the watcher must reach the last value, not each one.
    var last = ""
    while !last.hasSuffix(" 400") {
      last = try await watcher.nextLine(seconds: 30)
    }
  }

  /// The share of the limit: a quarter, less the library's passing descriptors, three per path,
  /// never more than 128 paths; nothing under a very low limit.
  @Test func theBudgetIsAQuarterOfTheSoftLimit() {
    #expect(DescriptorBudget.paths(forSoftLimit: 256) == 18)
    #expect(DescriptorBudget.paths(forSoftLimit: 1024) == 82)
    #expect(DescriptorBudget.paths(forSoftLimit: 32) == 0)
    #expect(DescriptorBudget.paths(forSoftLimit: 0) == 0)
    #expect(DescriptorBudget.paths(forSoftLimit: 1 << 20) == 128)
    #expect(DescriptorBudget.paths(forSoftLimit: nil) == 128)
  }

  /// A program opening keys that were written before takes each one's shared lock for a moment
  /// (when the descriptor budget keeps none of its descriptors): the lock file is then opened
  /// for reading only, so that closing it tells no watcher of the suite `IN_CLOSE_WRITE`, which
  /// woke the program's own watcher (and every other process's) once per key opened.
  @Test func reopeningWrittenKeysWakesNoWatcher() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    let writer = try DemoProcess(
      executable: URL(fileURLWithPath: Self.probe), arguments: ["descriptors", suite, "40", "0"]
    )
    #expect(try await writer.allOutput(seconds: 120).first == "keys 40 failed 0")
    let events = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/inotifywait"),
      arguments: ["-m", "-e", "close_write", "--format", "%f", suite]
    )
    while !(try await events.nextErrorLine()).contains("established") {}
    let reader = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/prlimit"),
      arguments: ["--nofile=32:32", Self.probe, "open", suite, "40"]
    )
    #expect(try await reader.allOutput(seconds: 120).last?.hasPrefix("opened 40 ") == true)
    // The end of what the reader caused, marked by a file of the test's own.
    try Data().write(to: URL(fileURLWithPath: directory.path("suite/end")))
    var closed: [String] = []
    while true {
      let name = try await events.nextLine()
      if name == "end" { break }
      closed.append(name)
    }
    #expect(closed.isEmpty, "closed after writing: \(closed.prefix(5)) (\(closed.count))")
  }

  /// `resource-probe open DIRECTORY COUNT`: the descriptors and mappings with every key open.
  private static func opened(_ count: Int, in suite: String) async throws -> (descriptors: Int, mappings: Int) {
    let output = try await DemoProcess(executable: URL(fileURLWithPath: probe), arguments: ["open", suite, "\(count)"])
      .allOutput(seconds: 300)
    let fields = try #require(output.last?.split(separator: " "), "\(output)")
    try #require(fields.count == 8 && fields[0] == "opened", "\(output)")
    return (try #require(Int(fields[6])), try #require(Int(fields[7])))
  }
}
