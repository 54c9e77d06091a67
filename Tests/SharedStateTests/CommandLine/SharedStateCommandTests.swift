import Foundation
import SharedState
import Testing

/// `shared-state`, the command users install, run as real processes: every subcommand on a
/// suite given by path and by name, on a file, and their errors and exit statuses.
@Suite("shared-state")
struct SharedStateCommandTests {
  typealias Tool = SharedStateTool

  @Test func everySubcommandWorksOnASuiteGivenByPath() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("settings")

    #expect(try await Tool.run("set", suite, "window", #"{"width":640,"title":"a/b","tags":[1,2.5,null]}"#).status == 0)
    #expect(try await Tool.run("get", suite, "window").output == [#"{"tags":[1,2.5,null],"title":"a/b","width":640}"#])
    #expect(try await Tool.run("increment", suite, "launches").output == ["1"])
    #expect(try await Tool.run("increment", "--by", "41", suite, "launches").output == ["42"])
    #expect(try await Tool.run("increment", "--by=-2", suite, "launches").output == ["40"])
    // A program using the library reads what the command stored.
    #expect(try AppStorageSuite(directory: URL(fileURLWithPath: suite)).value(forKey: "launches", as: Int.self) == 40)

    #expect(try await Tool.run("list-keys", suite).output == ["launches", "window"])
    #expect(
      try await Tool.run("list-recursively", suite).output
        == ["launches 40", #"window {"tags":[1,2.5,null],"title":"a/b","width":640}"#]
    )
    #expect(
      try await Tool.run("list-recursively", "--json", suite).output.first
        == #"{"key":"launches","value":40}"#
    )

    #expect(try await Tool.run("reset", suite, "window") == .init(status: 0, output: [], errors: []))
    let missing = try await Tool.run("get", suite, "window")
    #expect(missing.status == 3, "no value: status 3")
    #expect(missing.output.isEmpty)
    #expect(missing.errors == [#"shared-state: key "window" of \#(suite) has no value."#])
    #expect(try await Tool.run("list-keys", suite).output == ["launches"])
    // Resetting what has no value does nothing, and succeeds.
    #expect(try await Tool.run("reset", suite, "window").status == 0)
  }

  @Test func aSuiteGivenByNameIsTheLibrarysSuiteOfThatName() async throws {
    let home = try TemporaryDirectory()
    let configuration = home.path("config")
    #expect(try await Tool.run("set", "myapp", "theme", #""dark""#, configurationHome: configuration).status == 0)
    // Where AppStorageSuite(named:) puts it: $XDG_CONFIG_HOME/NAME/KEY.json.
    #expect(try String(contentsOfFile: "\(configuration)/myapp/theme.json", encoding: .utf8) == "\"dark\"\n")
    #expect(try await Tool.run("get", "myapp", "theme", configurationHome: configuration).output == [#""dark""#])
    #expect(try await Tool.run("increment", "myapp", "count", configurationHome: configuration).output == ["1"])
    #expect(try await Tool.run("list-keys", "myapp", configurationHome: configuration).output == ["count", "theme"])
    #expect(
      try await Tool.run("list-recursively", "myapp", configurationHome: configuration).output
        == ["count 1", #"theme "dark""#]
    )
    #expect(try await Tool.run("reset", "myapp", "theme", configurationHome: configuration).status == 0)
    #expect(try await Tool.run("get", "myapp", "theme", configurationHome: configuration).status == 3)
  }

  @Test func aFileIsOneValue() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    #expect(try await Tool.run("get", "--file", file).status == 3)
    #expect(!FileManager.default.fileExists(atPath: file), "reading creates nothing")
    #expect(try await Tool.run("set", "--file", file, "[true]").status == 0)
    #expect(try await Tool.run("get", "--file", file).output == ["[true]"])

    let notAnInteger = try await Tool.run("increment", "--file", file)
    #expect(notAnInteger.status == 1)
    #expect(notAnInteger.errors.count == 1)
    #expect(notAnInteger.errors.first?.hasPrefix("shared-state: \(file) does not hold a valid value") == true)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "[true]", "a failed command writes nothing")

    #expect(try await Tool.run("set", "--file", file, "--", "-7").status == 0)
    #expect(try await Tool.run("increment", "--file", file, "--by", "10").output == ["3"])
    #expect(try await Tool.run("reset", "--file", file).status == 0)
    #expect(!FileManager.default.fileExists(atPath: file))
    #expect(try await Tool.run("list-keys", "--file", file).status == 2, "a file has no keys")
  }

  @Test func errorsAreOneSentenceWithTheirExitStatus() async throws {
    let home = try TemporaryDirectory()
    let configuration = home.path("config")
    let suite = home.path("suite")
    #expect(try await Tool.run("set", suite, "k", "1").status == 0)

    let badJSON = try await Tool.run("set", suite, "k", "{bad")
    #expect(badJSON.status == 1)
    #expect(badJSON.output.isEmpty)
    #expect(badJSON.errors == ["shared-state: '{bad' is not valid JSON: expected a key at byte 1."])
    #expect(try await Tool.run("get", suite, "k").output == ["1"], "bad JSON writes nothing")

    let unknownByName = try await Tool.run("get", "nosuchapp", "k", configurationHome: configuration)
    #expect(unknownByName.status == 1)
    #expect(unknownByName.errors == [#"shared-state: there is no suite "nosuchapp": \#(configuration)/nosuchapp does not exist."#])
    #expect(try await Tool.run("list-keys", home.path("nowhere")).status == 1)
    #expect(try await Tool.run("monitor", home.path("nowhere")).status == 1)
    #expect(try await Tool.run("get", "..", "k").status == 1)

    // Usage: argument-parser's own message, and status 2.
    #expect(try await Tool.run("get", suite).status == 2)
    #expect(try await Tool.run("get", suite, "k", "extra").status == 2)
    #expect(try await Tool.run("get", "--file", "f", "--postgres", "postgres://u@h/d").status == 2)
    #expect(try await Tool.run("frobnicate").status == 2)
    #expect(try await Tool.run("--help").status == 0)

    let overflow = try await Tool.run("increment", "--by", "9223372036854775807", suite, "k")
    #expect(overflow.status == 1)
    #expect(overflow.errors.first?.contains("would go beyond 9223372036854775807") == true)
    #expect(try await Tool.run("get", suite, "k").output == ["1"])
  }

  /// Integers beyond 64 bits print as written, not as a double (2^64 printed as
  /// 1.8446744073709552e+19).
  @Test func largeIntegersPrintExactly() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    let file = directory.path("big.json")
    for number in ["18446744073709551616", "18446744073709551615", "-9223372036854775809", "9223372036854775808"] {
      // A negative number follows "--", as for any command of argument-parser.
      #expect(try await Tool.run("set", suite, "big", "--", number).status == 0)
      #expect(try await Tool.run("get", suite, "big").output == [number], "suite: \(number)")
      #expect(try await Tool.run("set", "--file", file, "[\(number)]").status == 0)
      #expect(try await Tool.run("get", "--file", file).output == ["[\(number)]"], "file: \(number)")
    }
    // A file holds any length exactly; a suite's key is read through Codable, whose Decimal
    // keeps 38 digits.
    let long = "-123456789012345678901234567890123456789012345"
    #expect(try await Tool.run("set", "--file", file, "--", long).status == 0)
    #expect(try String(contentsOfFile: file, encoding: .utf8) == long)
    #expect(try await Tool.run("get", "--file", file).output == [long])
    // A file written by another program, read by the demo tool too.
    try Data("{\"n\": 18446744073709551616}".utf8).write(to: URL(fileURLWithPath: file))
    #expect(try await Tool.run("get", "--file", file).output == [#"{"n":18446744073709551616}"#])
    let demo = try DemoProcess("get", "--file", file)
    #expect(try await demo.allOutput() == [#"{"n":18446744073709551616}"#])
  }

  @Test func monitorPrintsChangesMadeByOtherProcesses() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    #expect(try await Tool.run("set", suite, "volume", "3").status == 0)
    let monitor = try Tool.start(["monitor", "--ready", suite])
    #expect(try await monitor.nextErrorLine() == "ready")

    #expect(try await Tool.run("set", suite, "volume", "4").status == 0)
    #expect(try await monitor.nextLine() == "volume: 4")
    // A key made after monitoring began is followed too.
    #expect(try await Tool.run("set", suite, "name", #""Ada""#).status == 0)
    #expect(try await monitor.nextLine() == #"name: "Ada""#)
    #expect(try await Tool.run("increment", suite, "name").status == 1)
    #expect(try await Tool.run("increment", suite, "volume").status == 0)
    #expect(try await monitor.nextLine() == "volume: 5")
    #expect(try await Tool.run("reset", suite, "volume").status == 0)
    #expect(try await monitor.nextLine() == "volume: null")

    // One key, and a file: the same, the file's value alone.
    let file = directory.path("file.json")
    let one = try Tool.start(["monitor", "--ready", suite, "name"])
    let whole = try Tool.start(["monitor", "--ready", "--file", file])
    #expect(try await one.nextErrorLine() == "ready")
    #expect(try await whole.nextErrorLine() == "ready")
    #expect(try await Tool.run("set", suite, "name", #""Grace""#).status == 0)
    #expect(try await Tool.run("set", "--file", file, #"{"x":1}"#).status == 0)
    #expect(try await one.nextLine() == #"name: "Grace""#)
    #expect(try await whole.nextLine() == #"{"x":1}"#)
    #expect(try await monitor.nextLine() == #"name: "Grace""#)

    for process in [monitor, one, whole] {
      process.kill(SIGINT)
      #expect(try await process.waitForExit() == 128 + SIGINT, "monitor runs until interrupted")
    }
  }

  @Test func completionScriptsAndTheManualsInputAreGenerated() async throws {
    for shell in ["bash", "zsh", "fish"] {
      let script = try await Tool.run("--generate-completion-script", shell)
      #expect(script.status == 0)
      #expect(script.output.joined(separator: "\n").contains("list-recursively"), "\(shell)")
    }
    // What argument-parser's generate-manual plugin reads to write the man page.
    let dump = try await Tool.run("--experimental-dump-help")
    #expect(dump.status == 0)
    let help = try JSONSerialization.jsonObject(with: Data(dump.output.joined(separator: "\n").utf8)) as? [String: Any]
    let command = help?["command"] as? [String: Any]
    let names = (command?["subcommands"] as? [[String: Any]])?.compactMap { $0["commandName"] as? String }
    #expect(names == ["get", "set", "reset", "list-keys", "list-recursively", "monitor", "increment", "help"])
  }
}

/// `shared-state` on PostgreSQL, through a real server.
@Suite("shared-state on PostgreSQL", .postgresInstalled)
struct SharedStatePostgresCommandTests {
  typealias Tool = SharedStateTool

  @Test func getSetIncrementListAndMonitorThroughAServer() async throws {
    try await PostgresServer.withServer { server in
      let url = server.url(user: "postgres")
      #expect(try await Tool.run("get", "--postgres", url, "app", "k").status == 3)
      #expect(try await Tool.run("set", "--postgres", url, "app", "k", #"{"b":18446744073709551616}"#).status == 0)
      #expect(try await Tool.run("get", "--postgres", url, "app", "k").output == [#"{"b":18446744073709551616}"#])
      #expect(try await Tool.run("increment", "--postgres", url, "--by", "2", "app", "n").output == ["2"])
      #expect(try await Tool.run("list-keys", "--postgres", url, "app").output == ["k", "n"])
      #expect(try await Tool.run("list-keys", "--postgres", url, "other").output == [])
      #expect(try await Tool.run("list-recursively", "--postgres", url, "app").output == [#"k {"b":18446744073709551616}"#, "n 2"])

      let monitor = try Tool.start(["monitor", "--ready", "--postgres", url, "app"])
      #expect(try await monitor.nextErrorLine() == "ready")
      #expect(try await Tool.run("increment", "--postgres", url, "app", "n").output == ["3"])
      #expect(try await monitor.nextLine() == "n: 3")
      // A reset: the watching process goes back to its default, and the key has no value.
      #expect(try await Tool.run("reset", "--postgres", url, "app", "n").status == 0)
      #expect(try await monitor.nextLine() == "n: null")
      #expect(try await Tool.run("get", "--postgres", url, "app", "n").status == 3)
      #expect(try await Tool.run("list-keys", "--postgres", url, "app").output == ["k"])
      #expect(try await Tool.run("increment", "--postgres", url, "app", "n").output == ["1"])
      #expect(try await monitor.nextLine() == "n: 1")
      monitor.kill(SIGINT)
    }
  }
}
