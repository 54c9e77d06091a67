import Foundation
import SharedState
import Testing

/// Processes opening, or watching, one file key at the same moment: each may create the empty
/// placeholder, and exactly one does; none writes it over a value.
@Suite("File storage: the placeholder across processes")
struct FilePlaceholderProcessTests {
  @Test func processesOpeningANewKeyTogetherLeaveOneEmptyFile() async throws {
    let directory = try TemporaryDirectory()
    for round in 0..<30 {
      let path = directory.path("new-\(round).json")
      let readers = try (0..<3).map { _ in
        try DemoProcess("first-read", "--file", path, "--default", "1", "--start-at", Self.startTime())
      }
      for reader in readers {
        #expect(try await reader.allOutput() == ["1"], "round \(round)")
        #expect(try await reader.allErrors() == [], "round \(round)")
        #expect(try await reader.waitForExit() == 0, "round \(round)")
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(), "round \(round)")
    }
    #expect(try directory.contents().filter { !$0.hasPrefix(".") } == (0..<30).map { "new-\($0).json" }.sorted())
  }

  @Test func aValueWrittenWhileOthersOpenTheKeyIsNeverWrittenOver() async throws {
    let directory = try TemporaryDirectory()
    for round in 0..<30 {
      let path = directory.path("raced-\(round).json")
      let start = Self.startTime()
      let writer = try DemoProcess("first-read", "--file", path, "--default", "1", "--then-write", "7", "--start-at", start)
      let readers = try (0..<3).map { _ in
        try DemoProcess("first-read", "--file", path, "--default", "1", "--start-at", start)
      }
      for process in [writer] + readers {
        let read = try await process.allOutput()
        #expect(read == ["1"] || read == ["7"], "round \(round): \(read)")
        #expect(try await process.allErrors() == [], "round \(round)")
        #expect(try await process.waitForExit() == 0, "round \(round)")
      }
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "7", "round \(round): the value was written over")
    }
  }

  @Test func watchersOfADeletedFileRecreateOneEmptyFile() async throws {
    let directory = try TemporaryDirectory()
    let path = directory.path("watched.json")
    let watchers = try (0..<3).map { _ in try DemoProcess("watch", "--file", path) }
    for watcher in watchers {
      #expect(try await watcher.nextLine().hasSuffix(" null"))
    }
    for round in 0..<10 {
      #expect(try await DemoProcess("set", "--file", path, "\(round + 100)").waitForExit() == 0)
      for watcher in watchers { try await Self.skip(watcher, untilLineEndsWith: " \(round + 100)") }
      try FileManager.default.removeItem(atPath: path)
      // Each watcher reports the default value, then tries to make the file.
      for watcher in watchers { try await Self.skip(watcher, untilLineEndsWith: " null") }
      try await FilePlaceholderTests.waitForFile(URL(fileURLWithPath: path))
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(), "round \(round)")
      #expect(try directory.contents().filter { !$0.hasPrefix(".") } == ["watched.json"], "round \(round)")
    }
    for watcher in watchers {
      watcher.kill(SIGTERM)
      #expect(try await watcher.allErrors() == [])
    }
  }

  /// Far enough ahead that every process is running and waiting when it comes.
  static func startTime() -> String {
    String(UInt64(Date().timeIntervalSince1970 * 1e9) + 400_000_000)
  }

  /// Reads a process's lines until one ends with `suffix`, failing when none comes in time.
  static func skip(_ process: DemoProcess, untilLineEndsWith suffix: String) async throws {
    while try await !process.nextLine().hasSuffix(suffix) {}
  }
}
