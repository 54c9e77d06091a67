import Foundation
import Testing
import TestSupport

/// A directory another local user can write is hostile ground (DESIGN.md invariant 8): whatever
/// that user plants beside a stored file, `shared-demo` running as root never reads, writes,
/// creates or changes the mode of anything outside the directory, never hangs, never spins, and
/// never reports as failed a write that took place.
///
/// The other user is `nobody` (uid 65534), through `setpriv`; the tests run as root in CI and are
/// skipped elsewhere. The writer is the `shared-demo` tool, so that setting `SHARED_DEMO_PATH` to
/// an older build shows what each test guards against.
@Suite("Hostile directory", .serialized, .enabled(if: getuid() == 0, "needs root and a second user"))
struct HostileDirectoryTests {
  /// A directory owned by `nobody` (not sticky, so the kernel's own symlink protection does not
  /// apply), and beside it an "outside" directory holding a root-only file.
  final class Ground: Sendable {
    let root: TemporaryDirectory
    let directory: String
    let outsideFile: String

    init() throws {
      root = try TemporaryDirectory()
      directory = root.path("shared")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      #expect(chown(directory, 65534, 65534) == 0)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.url.path)
      let outside = root.path("outside")
      try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
      outsideFile = outside + "/secret"
      try Data("root's secret".utf8).write(to: URL(fileURLWithPath: outsideFile))
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: outsideFile)
    }

    func path(_ name: String) -> String { directory + "/" + name }


    /// Whether the outside file is exactly as it was: contents and mode.
    func expectOutsideUntouched(sourceLocation: SourceLocation = #_sourceLocation) throws {
      #expect(
        try String(contentsOfFile: outsideFile, encoding: .utf8) == "root's secret",
        sourceLocation: sourceLocation
      )
      let mode = try FileManager.default.attributesOfItem(atPath: outsideFile)[.posixPermissions] as? Int
      #expect(mode == 0o600, sourceLocation: sourceLocation)
    }
  }

  /// Runs `shared-demo` and returns its status and standard error, failing the test (and killing
  /// the process) when it does not finish within `seconds`: a hang or a spin. (Generous: the
  /// machines this runs on are shared and loaded; a hang or spin never finishes at all.)
  static func demo(_ arguments: String..., seconds: Double = 60) async throws -> (status: Int32, errors: [String]) {
    try await demo(arguments, seconds: seconds)
  }

  static func demo(_ arguments: [String], seconds: Double = 60) async throws -> (status: Int32, errors: [String]) {
    let process = try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
    do {
      let status = try await process.waitForExit(seconds: seconds)
      return (status, try await process.allErrors())
    } catch {
      process.kill(SIGKILL)
      Issue.record("shared-demo \(arguments) did not finish within \(seconds) s: it hangs or spins")
      return (-1, [])
    }
  }

  @Test func scratchLinkedToAnOutsideFileIsNotWrittenNorChmodded() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try await DemoProcess.shellAsNobody("echo 1 > '\(target)' && chmod 666 '\(target)' && ln -s '\(ground.outsideFile)' '\(ground.path(".value.json.sharedstate-scratch"))'")
    let (status, errors) = try await Self.demo("set", "--file", target, "2")
    #expect(status == 0, "\(errors)")
    try ground.expectOutsideUntouched()
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "2")
    let targetType = try FileManager.default.attributesOfItem(atPath: target)[.type] as? FileAttributeType
    #expect(targetType == .typeRegular)
  }

  @Test func scratchHardLinkedToAnOutsideFileIsNotWritten() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    // Root may hard-link anything (fs.protected_hardlinks restricts only other users): here it
    // stands in for a user linking a file of their own that root would then clobber.
    try FileManager.default.linkItem(atPath: ground.outsideFile, toPath: ground.path(".value.json.sharedstate-scratch"))
    let (status, errors) = try await Self.demo("set", "--file", target, "2")
    #expect(status == 0, "\(errors)")
    try ground.expectOutsideUntouched()
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "2")
  }

  @Test func lockLinkedToAnOutsideFileIsRefusedAndNothingIsWritten() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try await DemoProcess.shellAsNobody("echo 1 > '\(target)' && ln -s '\(ground.outsideFile)' '\(ground.path(".value.json.sharedstate-lock"))'")
    let (status, errors) = try await Self.demo("set", "--file", target, "2")
    #expect(status == 1)
    #expect(errors.joined().contains("symbolic link"), "\(errors)")
    #expect(errors.joined().contains(".value.json.sharedstate-lock"), "\(errors)")
    try ground.expectOutsideUntouched()
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "1\n", "a failed write did not happen")
  }

  @Test func danglingLockLinkNeitherSpinsNorCreatesItsTarget() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    let created = ground.root.path("outside/created-by-the-writer")
    try await DemoProcess.shellAsNobody("echo 1 > '\(target)' && ln -s '\(created)' '\(ground.path(".value.json.sharedstate-lock"))'")
    for arguments in [["get", "--file", target], ["set", "--file", target, "2"], ["increment", "--file", target]] {
      let (status, _) = try await Self.demo(arguments)
      if arguments[0] != "get" { #expect(status == 1, "\(arguments)") }
      #expect(!FileManager.default.fileExists(atPath: created), "\(arguments) created the link's target")
    }
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "1\n")
  }

  @Test func fifoAsScratchDoesNotHangTheWriter() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try await DemoProcess.shellAsNobody("echo 1 > '\(target)' && chmod 666 '\(target)' && mkfifo '\(ground.path(".value.json.sharedstate-scratch"))'")
    let (status, errors) = try await Self.demo("set", "--file", target, "2")
    #expect(status == 0, "\(errors)")
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "2")
  }

  @Test func fifoAsTargetIsAClearErrorNotAHang() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try await DemoProcess.shellAsNobody("mkfifo '\(target)'")
    let get = try await Self.demo("get", "--file", target)
    #expect(get.status == 1)
    #expect(get.errors.joined().contains("not a regular file"), "\(get.errors)")
    let set = try await Self.demo("set", "--file", target, "2")
    #expect(set.status == 1)
    #expect(set.errors.joined().contains(target), "\(set.errors)")
    let attributes = try FileManager.default.attributesOfItem(atPath: target)
    #expect(attributes[.type] as? FileAttributeType == .typeUnknown || attributes[.type] as? FileAttributeType != .typeRegular)
  }

  @Test func fifoAsLockFileFailsBeforeWriting() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try await DemoProcess.shellAsNobody("echo 1 > '\(target)' && chmod 666 '\(target)' && mkfifo -m 666 '\(ground.path(".value.json.sharedstate-lock"))'")
    let (status, errors) = try await Self.demo("set", "--file", target, "2")
    #expect(status == 1)
    #expect(errors.joined().contains("not a regular file"), "\(errors)")
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "1\n", "a write reported as failed took place")
  }

  @Test func appStorageKeyFileAsFifoIsAClearErrorNotAHang() async throws {
    let ground = try Ground()
    try await DemoProcess.shellAsNobody("mkfifo '\(ground.path("count.json"))'")
    let get = try await Self.demo("get", "--suite", ground.directory, "--key", "count")
    #expect(get.status == 1)
    #expect(get.errors.joined().contains("not a regular file"), "\(get.errors)")
  }

  @Test func fullDiskLeavesNoPartialScratchBehind() async throws {
    let mountPoint = try MountedTmpfs(size: "64k")
    defer { mountPoint.unmount() }
    let target = mountPoint.path("big.json")
    let fits = "\"" + String(repeating: "a", count: 36_000) + "\""
    let tooBig = "\"" + String(repeating: "b", count: 60_000) + "\""
    #expect(try await Self.demo("set", "--file", target, fits).status == 0)
    let failed = try await Self.demo("set", "--file", target, tooBig)
    #expect(failed.status == 1)
    #expect(failed.errors.joined().contains("No space left on device"), "\(failed.errors)")
    // The value stays, no partial scratch file is left, and the space it took is free again.
    #expect(try String(contentsOfFile: target, encoding: .utf8) == fits)
    let scratch = mountPoint.path(".big.json.sharedstate-scratch")
    let scratchSize = (try? FileManager.default.attributesOfItem(atPath: scratch)[.size] as? Int) ?? 0
    #expect(scratchSize == 0, "a partial scratch file of \(scratchSize) bytes is left")
    let other = try await Self.demo("set", "--file", mountPoint.path("other.json"), "\"" + String(repeating: "c", count: 8_000) + "\"")
    #expect(other.status == 0, "another key cannot be written: \(other.errors)")
  }
}
