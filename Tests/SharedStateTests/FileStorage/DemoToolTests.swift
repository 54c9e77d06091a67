import Foundation
import Testing

/// The `shared-demo` tool's formats and errors, which scripts depend on.
@Suite("shared-demo tool")
struct DemoToolTests {
  @Test func getSetAndIncrementPrintTheDocumentedFormats() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    #expect(try await DemoProcess("get", "--file", file).allOutput() == ["null"])
    #expect(try await DemoProcess("set", "--file", file, #"{"b": [1, 2.5], "a": "x/y"}"#).allOutput() == [])
    #expect(try await DemoProcess("get", "--file", file).allOutput() == [#"{"a":"x/y","b":[1,2.5]}"#])
    let counter = directory.path("counter.json")
    #expect(try await DemoProcess("increment", "--file", counter, "--times", "3").allOutput() == ["ok 3"])
    #expect(try await DemoProcess("get", "--file", counter).allOutput() == ["3"])
  }

  @Test func watchStopsAfterItsChangesAndFailsOnTimeout() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    // A timeout far beyond the test's own steps: on a loaded run this process may be held up
    // for tens of seconds between reading the first line and writing.
    let watcher = try DemoProcess("watch", "--file", file, "--changes", "1", "--timeout", "300")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await DemoProcess("set", "--file", file, "7").waitForExit() == 0)
    let lines = try await watcher.allOutput()
    let errors = try await watcher.allErrors()
    #expect(lines.count == 1, "watch printed \(lines); its errors: \(errors)")
    let parts = try #require(lines.first?.split(separator: " "))
    #expect(parts.count == 2 && UInt64(parts[0]) != nil && parts[1] == "7")
    #expect(try await watcher.waitForExit() == 0)

    let idle = try DemoProcess("watch", "--file", file, "--changes", "1", "--timeout", "0.5")
    #expect(try await idle.waitForExit() == 1)
  }

  @Test func watchWithIntegerReadsTheValueAsAnInteger() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.url.path
    let watcher = try DemoProcess("watch", "--suite", suite, "--key", "count", "--integer", "--timeout", "300")
    #expect(try await watcher.nextLine().hasSuffix(" 0"), "no value yet: the integer's default")
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "count", "7").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 7"))
    // What is not an integer is an error, and the value stays.
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "count", #""seven""#).waitForExit() == 0)
    #expect(try await watcher.nextErrorLine().contains("does not hold a valid value"))
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "count", "8").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 8"))
  }

  @Test func errorsAreOneSentenceOnStandardErrorWithStatusOne() async throws {
    let directory = try TemporaryDirectory()
    let garbage = directory.path("garbage.json")
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: garbage))

    let cases: [(arguments: [String], message: String)] = [
      (["set", "--file", directory.path("v.json"), "{bad"], "is not valid JSON"),
      (["get", "--file", garbage], "does not hold a valid value"),
      (["increment", "--file", garbage], "does not hold a valid value"),
      (["get", "--file", directory.url.path], "could not be read"),
    ]
    for (arguments, message) in cases {
      let process = try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
      #expect(try await process.waitForExit() == 1, "\(arguments)")
      let errors = try await process.allErrors()
      #expect(errors.count == 1, "\(arguments): \(errors)")
      #expect(errors.first?.hasPrefix("shared-demo: ") == true, "\(arguments)")
      #expect(errors.first?.contains(message) == true, "\(arguments): \(errors)")
      #expect(errors.first?.hasSuffix(".") == true, "\(arguments)")
    }
    #expect(try String(contentsOfFile: garbage, encoding: .utf8) == "{not json", "a failed command changes nothing")
  }
}
