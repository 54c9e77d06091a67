import Foundation
import SharedState
import Testing
import TestSupport

/// Places a value cannot be written to (issue 38, points 4 and 6): a file system mounted
/// read-only, and a file someone made read-only to lock the value down. Reads work; writes fail
/// with one sentence, and the value stays.
///
/// The mount needs root; the tests run as root in CI and are skipped elsewhere. Setting
/// `SHARED_DEMO_PATH` to an older build shows what each test guards against.
@Suite("Read-only places", .serialized, .enabled(if: getuid() == 0, "needs root to mount"))
struct ReadOnlyPlacesTests {
  /// Runs `shared-demo` to its end and returns its status, standard output and standard error.
  static func run(_ arguments: String...) async throws -> (status: Int32, output: [String], errors: [String]) {
    try await run(arguments)
  }

  // MARK: Point 4: a read-only file system

  /// Keys the library wrote on a tmpfs, which is then remounted read-only: `get` reads them (the
  /// lock file opens for reading only), a key never written reads as nothing, and `set` fails
  /// with one sentence that says why.
  @Test func aReadOnlyFileSystemIsReadAndWritesFailWithOneSentence() async throws {
    let mountPoint = try MountedTmpfs(size: "1m")
    defer { mountPoint.unmount() }
    let file = mountPoint.path("value.json")
    let suite = mountPoint.path("suite")
    #expect(try await Self.run("set", "--file", file, "5").status == 0)
    #expect(try await Self.run("set", "--suite", suite, "--key", "count", "6").status == 0)
    try mountPoint.remount(readOnly: true)

    for (arguments, expected) in [
      (["get", "--file", file], "5"),
      (["get", "--suite", suite, "--key", "count"], "6"),
      (["get", "--file", mountPoint.path("never-written.json")], "null"),
      (["first-read", "--suite", suite, "--key", "other", "--default", "3"], "3"),
    ] {
      let read = try await Self.run(arguments)
      #expect(read.status == 0 && read.output == [expected], "\(arguments): \(read.output) \(read.errors)")
      #expect(read.errors.isEmpty, "\(arguments): \(read.errors)")
    }
    for arguments in [
      ["set", "--file", file, "7"],
      ["set", "--suite", suite, "--key", "count", "7"],
      ["increment", "--file", file],
    ] {
      let write = try await Self.run(arguments)
      #expect(write.status == 1, "\(arguments)")
      #expect(write.errors.count == 1, "one sentence: \(write.errors)")
      let sentence = write.errors.joined()
      #expect(sentence.contains("could not be written") && sentence.contains("Read-only file system"), "\(sentence)")
    }
    #expect(try await Self.run("get", "--file", file).output == ["5"])
  }

  // MARK: Point 6: a file made read-only

  /// A file whose mode lets nobody write it (`0444`) has been locked down, as an administrator
  /// locks a setting: `set` and `increment` refuse it with one sentence, root's too, and the
  /// value stays; once write permission is back, writes work again.
  @Test(arguments: ["file", "suite"])
  func aFileMadeReadOnlyIsNotReplaced(storage: String) async throws {
    let directory = try TemporaryDirectory()
    let target = storage == "file" ? directory.path("value.json") : directory.path(try AppStorageSuite.fileName(forKey: "count"))
    let location = storage == "file" ? ["--file", target] : ["--suite", directory.url.path, "--key", "count"]
    #expect(try await Self.run(["set"] + location + ["1"]).status == 0)
    let before = try Data(contentsOf: URL(fileURLWithPath: target))
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: target)

    for arguments in [["set"] + location + ["2"], ["increment"] + location] {
      let write = try await Self.run(arguments)
      #expect(write.status == 1, "\(arguments): a read-only file was replaced")
      #expect(write.errors.count == 1, "one sentence: \(write.errors)")
      let sentence = write.errors.joined()
      #expect(sentence.contains(target) && sentence.contains("read-only"), "\(sentence)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == before, "\(arguments)")
      let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
      #expect(mode == 0o444)
    }
    #expect(try await Self.run(["get"] + location).output == ["1"])

    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
    #expect(try await Self.run(["set"] + location + ["3"]).status == 0)
    #expect(try await Self.run(["get"] + location).output == ["3"])
  }

  static func run(_ arguments: [String]) async throws -> (status: Int32, output: [String], errors: [String]) {
    let process = try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
    let output = try await process.allOutput()
    let errors = try await process.allErrors()
    return (try await process.waitForExit(), output, errors)
  }
}
