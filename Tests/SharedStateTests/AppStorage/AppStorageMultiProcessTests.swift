import Foundation
import SharedState
import Testing

/// App storage shared by real processes, each a `shared-demo` on the same suite directory.
@Suite("App storage across processes")
struct AppStorageMultiProcessTests {
  @Test func eightProcessesOfFiveHundredIncrementsOnOneKeyEndAtFourThousand() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.url.path
    let workers = try (0..<8).map { _ in
      try DemoProcess("increment", "--suite", suite, "--key", "counter", "--times", "500")
    }
    for worker in workers {
      #expect(try await worker.allOutput(seconds: 300) == ["ok 500"])
      #expect(try await worker.waitForExit() == 0)
    }
    #expect(try await DemoProcess("get", "--suite", suite, "--key", "counter").allOutput() == ["4000"])
  }

  @Test func eightProcessesEachIncrementingItsOwnKeyAtOnce() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.url.path
    let start = String(UInt64(Date().timeIntervalSince1970 * 1e9) + 1_000_000_000)
    let workers = try (0..<8).map { index in
      try DemoProcess(
        "increment", "--suite", suite, "--key", "counter/\(index)", "--times", "500", "--start-at", start
      )
    }
    for worker in workers {
      #expect(try await worker.allOutput(seconds: 300) == ["ok 500"])
    }
    let keys = try await DemoProcess("keys", "--suite", suite).allOutput()
    #expect(keys == (0..<8).map { "counter/\($0)" })
    let storage = AppStorageSuite(directory: directory.url)
    for index in 0..<8 {
      #expect(try storage.value(forKey: "counter/\(index)", as: Int.self) == 500)
    }
  }

  @Test func anotherProcessSeesAWriteOfEachPlainValueType() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)

    let bool = try await watcher("bool", in: directory)
    @Shared(.appStorage("bool", store: suite)) var boolValue = false
    $boolValue.withLock { $0 = true }
    try await expectLine(bool, "true", afterDefault: "false")

    let int = try await watcher("int", in: directory)
    @Shared(.appStorage("int", store: suite)) var intValue = 0
    $intValue.withLock { $0 = -7 }
    try await expectLine(int, "-7", afterDefault: "0")

    let double = try await watcher("double", in: directory)
    @Shared(.appStorage("double", store: suite)) var doubleValue = 0.0
    $doubleValue.withLock { $0 = 0.25 }
    try await expectLine(double, "0.25", afterDefault: "0")

    let string = try await watcher("string", in: directory)
    @Shared(.appStorage("string", store: suite)) var stringValue = ""
    $stringValue.withLock { $0 = "☕️ ok" }
    try await expectLine(string, #""☕️ ok""#, afterDefault: #""""#)

    let strings = try await watcher("strings", in: directory)
    @Shared(.appStorage("strings", store: suite)) var stringsValue: [String] = []
    $stringsValue.withLock { $0 = ["a", "b"] }
    try await expectLine(strings, #"["a","b"]"#, afterDefault: "[]")

    let url = try await watcher("url", in: directory)
    @Shared(.appStorage("url", store: suite)) var urlValue = URL(string: "https://a.example")!
    $urlValue.withLock { $0 = URL(string: "https://b.example/x")! }
    try await expectLine(url, #""https://b.example/x""#, afterDefault: #""https://a.example""#)

    let data = try await watcher("data", in: directory)
    @Shared(.appStorage("data", store: suite)) var dataValue = Data()
    $dataValue.withLock { $0 = Data("hi".utf8) }
    try await expectLine(data, #""aGk=""#, afterDefault: #""""#)

    let date = try await watcher("date", in: directory)
    @Shared(.appStorage("date", store: suite)) var dateValue = Date(timeIntervalSince1970: 0)
    $dateValue.withLock { $0 = Date(timeIntervalSince1970: 86_400) }
    try await expectLine(date, "86400", afterDefault: "0")
  }

  @Test func anotherProcessSeesAWriteOfARawRepresentableACodableAndAnOptional() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)

    let level = try await watcher("level", in: directory)
    @Shared(.appStorage("level", store: suite)) var levelValue = Level.low
    $levelValue.withLock { $0 = .high }
    try await expectLine(level, "2", afterDefault: "1")

    let theme = try await watcher("theme", in: directory)
    @Shared(.appStorage("theme", store: suite)) var themeValue = Theme.light
    $themeValue.withLock { $0 = .dark }
    try await expectLine(theme, #""dark""#, afterDefault: #""light""#)

    let profile = try await watcher("profile", in: directory)
    @Shared(.appStorage("profile", store: suite)) var profileValue = Profile(name: "", tags: [])
    $profileValue.withLock { $0 = Profile(name: "p", tags: ["t"]) }
    try await expectLine(profile, #"{"name":"p","tags":["t"]}"#, afterDefault: #"{"name":"","tags":[]}"#)

    let optional = try await watcher("optional", in: directory)
    @Shared(.appStorage("optional", store: suite)) var optionalValue: Int?
    $optionalValue.withLock { $0 = 1 }
    try await expectLine(optional, "1")
    $optionalValue.withLock { $0 = nil }
    try await expectLine(optional, "null")
  }

  /// `shared-demo watch` on `key` of the suite in `directory`, once it has printed that the key
  /// holds nothing yet.
  private func watcher(_ key: String, in directory: TemporaryDirectory) async throws -> DemoProcess {
    let process = try DemoProcess("watch", "--suite", directory.url.path, "--key", key)
    #expect(try await process.nextLine().hasSuffix(" null"))
    return process
  }

  /// Expects `process`'s next line to show `json`, or the line after it when the next shows
  /// `stored`, the default that this process's first read stored: the watcher may see it
  /// before the write, or (events coalescing) only the write.
  private func expectLine(_ process: DemoProcess, _ json: String, afterDefault stored: String? = nil) async throws {
    var line = try await process.nextLine()
    if let stored, line.split(separator: " ", maxSplits: 1).last.map(String.init) == stored {
      line = try await process.nextLine()
    }
    #expect(line.split(separator: " ", maxSplits: 1).last.map(String.init) == json)
  }

  @Test func thisProcessSeesAnotherProcesssWritesLive() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    @Shared(.appStorage("count", store: suite)) var count = 0
    let values = AsyncQueue($count.values)
    #expect(try await values.next() == 0)
    #expect(try await DemoProcess("set", "--suite", directory.url.path, "--key", "count", "41").waitForExit() == 0)
    #expect(try await values.next() == 41)
    #expect(try await DemoProcess("increment", "--suite", directory.url.path, "--key", "count").waitForExit() == 0)
    #expect(try await values.next() == 42)
  }

  @Test func badBytesKeepTheLastGoodValueInAWatchingProcess() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.url.path
    let file = directory.path("count.json")
    let watcher = try DemoProcess("watch", "--suite", suite, "--key", "count")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "count", "5").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 5"))

    #expect(try await DemoProcess.shell("printf '{not json' > '\(file)'").waitForExit() == 0)
    let error = try await watcher.nextErrorLine()
    #expect(error.contains("does not hold a valid value"))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{not json", "the bad file is left alone")

    // The next good write arrives; nothing was printed for the bad bytes in between.
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "count", "6").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 6"))
  }
}
