import Foundation
import SharedState
import Testing

/// `shared-demo keys` prints keys so that a key holding a newline cannot pass for two keys.
@Suite("shared-demo keys")
struct KeysCommandTests {
  @Test func nullAndJSONOutputsAreUnambiguous() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    // The keys' files, written as the library names them (fewer processes to wait for).
    try FileManager.default.createDirectory(atPath: suite, withIntermediateDirectories: true)
    for key in ["a\nb", "plain", "quote\"and\\slash/"] {
      let file = URL(fileURLWithPath: suite).appendingPathComponent(try AppStorageSuite.fileName(forKey: key))
      try Data("1".utf8).write(to: file)
    }
    let demo = DemoProcess.demoExecutable.path
    // NUL-terminated: newlines shown as N and NULs as |, so that the shell's lines do not split.
    let null = try DemoProcess.shell("'\(demo)' keys --suite '\(suite)' --null | tr '\\n\\000' 'N|'")
    #expect(try await null.allOutput() == ["aNb|plain|quote\"and\\slash/|"])

    let json = try DemoProcess("keys", "--suite", suite, "--json")
    let lines = try await json.allOutput()
    #expect(lines == [#""a\nb""#, #""plain""#, #""quote\"and\\slash/""#])
    let decoded = try lines.map { try JSONDecoder().decode(String.self, from: Data($0.utf8)) }
    #expect(decoded == ["a\nb", "plain", "quote\"and\\slash/"])

    let both = try DemoProcess("keys", "--suite", suite, "--json", "--null")
    #expect(try await both.waitForExit() != 0)
  }
}
