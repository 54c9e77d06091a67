import Foundation
@testable import SharedState
import Testing

/// Opening suites, and using them without `@Shared`.
@Suite("App storage suite")
struct AppStorageSuiteTests {
  @Test func namedSuitesLiveInXDGConfigHome() throws {
    let directory = try AppStorageSuite.configurationDirectory(
      named: "myapp", environment: ["XDG_CONFIG_HOME": "/xdg/config", "HOME": "/home/u"]
    )
    #expect(directory.path == "/xdg/config/myapp")
  }

  @Test(arguments: [
    ["HOME": "/home/u"],
    ["XDG_CONFIG_HOME": "", "HOME": "/home/u"],
    ["XDG_CONFIG_HOME": "relative/config", "HOME": "/home/u"],
  ])
  func namedSuitesFallBackToDotConfig(environment: [String: String]) throws {
    let directory = try AppStorageSuite.configurationDirectory(named: "myapp", environment: environment)
    #expect(directory.path == "/home/u/.config/myapp")
  }

  @Test func withoutHomeTheUserDatabaseDecides() throws {
    let directory = try AppStorageSuite.configurationDirectory(named: "myapp", environment: [:])
    #expect(directory.path.hasSuffix("/.config/myapp"))
    #expect(directory.path.hasPrefix("/"))
  }

  @Test(arguments: ["", ".", "..", "a/b", "../x", "a\0b"])
  func invalidSuiteNamesAreRejected(name: String) {
    #expect(throws: AppStorageError(.invalidSuiteName, name: name)) {
      try AppStorageSuite.configurationDirectory(named: name, environment: ["HOME": "/home/u"])
    }
    #expect(throws: AppStorageError.self) { try AppStorageSuite(named: name) }
  }

  @Test func namedSuiteOpensTheRealDirectory() throws {
    let expected = try AppStorageSuite.configurationDirectory(
      named: "sharedstate-tests", environment: ProcessInfo.processInfo.environment
    )
    #expect(try AppStorageSuite(named: "sharedstate-tests").directory.path == expected.path)
  }

  @Test func readWriteRemoveAndList() throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    #expect(try suite.keys() == [])
    #expect(try suite.value(forKey: "missing", as: Int.self) == nil)

    try suite.write(true, forKey: "flag")
    try suite.write(["x", "y"], forKey: "list")
    try suite.write(Level.high, forKey: "level")
    try suite.write(Theme.dark, forKey: "theme")
    try suite.write(Profile(name: "n", tags: []), forKey: "profile")
    try suite.write(1, forKey: ".hidden/key")
    #expect(try suite.value(forKey: "flag", as: Bool.self) == true)
    #expect(try suite.value(forKey: "list", as: [String].self) == ["x", "y"])
    #expect(try suite.value(forKey: "level", as: Level.self) == .high)
    #expect(try suite.value(forKey: "theme", as: Theme.self) == .dark)
    #expect(try suite.value(forKey: "profile", as: Profile.self) == Profile(name: "n", tags: []))

    // Files that are no key's file are not listed: companions, hidden files, backups, others.
    for stray in [".hidden.json", "notes.txt", "flag.json~", "%2e.json", ".flag.json.swp"] {
      try "1".write(toFile: directory.path(stray), atomically: false, encoding: .utf8)
    }
    #expect(try directory.contents().contains(".flag.json.sharedstate-lock"))
    #expect(try suite.keys() == [".hidden/key", "flag", "level", "list", "profile", "theme"])

    try suite.removeValue(forKey: "flag")
    try suite.write(nil as String?, forKey: "list")
    #expect(try suite.keys() == [".hidden/key", "level", "profile", "theme"])
    #expect(try suite.value(forKey: "flag", as: Bool.self) == nil)
  }

  @Test func observingOneKey() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    let (stream, continuation) = AsyncStream<Int?>.makeStream()
    let observer = Task {
      for try await value in suite.values(forKey: "count", as: Int.self) {
        continuation.yield(value)
      }
      continuation.finish()
    }
    defer { observer.cancel() }
    let values = AsyncQueue(stream)
    #expect(try await values.next() == .some(nil))

    try suite.write(1, forKey: "count")
    #expect(try await values.next() == 1)

    // Another process's write, and one made by a shell.
    #expect(try await DemoProcess("set", "--suite", directory.url.path, "--key", "count", "2").waitForExit() == 0)
    #expect(try await values.next() == 2)
    #expect(try await DemoProcess.shell("echo 3 > '\(directory.path("count.json"))'").waitForExit() == 0)
    #expect(try await values.next() == 3)

    // Contents that do not decode are skipped; the next good value arrives.
    try "\"three\"".write(toFile: directory.path("count.json"), atomically: true, encoding: .utf8)
    try suite.removeValue(forKey: "count")
    #expect(try await values.next() == .some(nil))
    try suite.write(4, forKey: "count")
    #expect(try await values.next() == 4)
  }

  @Test func observingAKeyThatCannotBeStoredEndsWithTheError() async throws {
    let suite = AppStorageSuite.inMemory()
    await #expect(throws: AppStorageError.self) {
      for try await _ in suite.values(forKey: String(repeating: "/", count: 100), as: Int.self) {}
    }
  }
}
