import Foundation
import SystemPackage
import Testing
import TestSupport

@testable import SharedState

/// Directories other users can write, seen from root (issue 38, points 1–3): a lock name another
/// user hard-links elsewhere, a directory link another user plants, and what a read leaves
/// behind. `nobody` (uid 65534, through `setpriv`) is the other user; sysctls are changed only
/// inside a test, and restored on every way out.
///
/// The tests run as root in CI and are skipped elsewhere. Setting `SHARED_DEMO_PATH` to an older
/// build shows what each test guards against.
@Suite("Shared ground", .serialized, .enabled(if: getuid() == 0, "needs root and a second user"))
struct SharedGroundTests {
  /// A temporary directory every user may enter (`0755`), holding `shared` with `mode` (set, not
  /// created with: the umask would take bits off) and owned by `owner`.
  final class Ground: Sendable {
    let root: TemporaryDirectory
    let directory: String

    init(mode: Int, owner: uid_t = 0) throws {
      root = try TemporaryDirectory()
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.url.path)
      directory = root.path("shared")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      #expect(chown(directory, owner, owner) == 0)
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory)
    }

    func path(_ name: String) -> String { directory + "/" + name }
  }

  /// Runs `sysctl NAME=VALUE`, returning the value it had.
  static func setSysctl(_ name: String, _ value: String) throws -> String {
    let path = "/proc/sys/" + name.replacingOccurrences(of: ".", with: "/")
    let previous = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    try Data(value.utf8).write(to: URL(fileURLWithPath: path))
    return previous
  }

  static func restoreSysctl(_ name: String, _ value: String) {
    let path = "/proc/sys/" + name.replacingOccurrences(of: ".", with: "/")
    do {
      try Data(value.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      Issue.record("could not restore \(name) to \(value): \(error)")
    }
  }

  // MARK: Point 1: a lock name hard-linked elsewhere, then removed during the wait

  /// With `fs.protected_hardlinks=0`, `nobody` hard-links the lock file's name to a root-owned
  /// file outside its directory, a lock on that file is held, and `nobody` removes the name
  /// while root's `set` waits for the lock: the file outside is then singly linked again. Root
  /// must find that the inode it locked is no longer at the name, and neither grow it nor
  /// write the coordination page into it.
  @Test func aLockNameHardLinkedElsewhereAndRemovedDuringTheWaitIsNotWritten() async throws {
    let previous = try Self.setSysctl("fs.protected_hardlinks", "0")
    defer { Self.restoreSysctl("fs.protected_hardlinks", previous) }
    let ground = try Ground(mode: 0o755, owner: 65534)
    let outside = ground.root.path("outside")
    try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
    let victim = outside + "/victim"
    let victimContents = Data("root's data, not a lock file\n".utf8)
    try victimContents.write(to: URL(fileURLWithPath: victim))
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: victim)
    let target = ground.path("value.json")
    let lockName = ground.path(".value.json.sharedstate-lock")
    try await DemoProcess.shellAsNobody("ln '\(victim)' '\(lockName)'")

    // The conflicting lock, on the file the name leads to.
    let holder = try FileDescriptor.open(FilePath(lockName), .readOnly)
    var holderIsOpen = true
    defer { if holderIsOpen { try? holder.close() } }
    try holder.lock(.shared)
    let inode = try holder.status().inode

    let writer = try DemoProcess("set", "--file", target, "2")
    // Waits until the writer is blocked on that file's lock (/proc/locks shows it as `->`).
    try await withTimeout(seconds: 60) {
      while true {
        let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
        if locks.split(separator: "\n").contains(where: { $0.contains("->") && $0.contains(":\(inode) ") }) { return }
        try await Task.sleep(for: .milliseconds(5))
      }
    }
    try await DemoProcess.shellAsNobody("rm '\(lockName)'")
    try holder.close()
    holderIsOpen = false

    let status = try await writer.waitForExit(seconds: 60)
    let errors = try await writer.allErrors()
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == victimContents, "the file outside was written")
    let size = try FileManager.default.attributesOfItem(atPath: victim)[.size] as? Int
    #expect(size == victimContents.count, "the file outside was grown to \(String(describing: size)) bytes")
    #expect(status == 0, "\(errors)")
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "2")
  }

  /// A lock name that stays hard-linked to a file elsewhere is refused, naming it.
  @Test func aLockNameHardLinkedElsewhereIsRefused() async throws {
    let previous = try Self.setSysctl("fs.protected_hardlinks", "0")
    defer { Self.restoreSysctl("fs.protected_hardlinks", previous) }
    let ground = try Ground(mode: 0o755, owner: 65534)
    let victim = ground.root.path("victim")
    let victimContents = Data("root's data\n".utf8)
    try victimContents.write(to: URL(fileURLWithPath: victim))
    let lockName = ground.path(".value.json.sharedstate-lock")
    try await DemoProcess.shellAsNobody("ln '\(victim)' '\(lockName)'")
    let writer = try DemoProcess("set", "--file", ground.path("value.json"), "2")
    #expect(try await writer.waitForExit() == 1)
    let errors = try await writer.allErrors().joined()
    #expect(errors.contains(lockName) && errors.contains("hard links"), "\(errors)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == victimContents)
  }

  // MARK: Point 2: a directory link another user planted

  /// With `fs.protected_symlinks=0`, `nobody` plants in a sticky world-writable directory a
  /// link to root's own `0700` directory. Root's reads through it create nothing there (no
  /// placeholder, no stored default, no lock file), still read what is there, and a write
  /// through it fails naming the link.
  @Test func aDirectoryLinkAnotherUserPlantedCreatesNothing() async throws {
    let previous = try Self.setSysctl("fs.protected_symlinks", "0")
    defer { Self.restoreSysctl("fs.protected_symlinks", previous) }
    let ground = try Ground(mode: 0o1777)
    let privateDirectory = ground.root.path("private")
    try FileManager.default.createDirectory(atPath: privateDirectory, withIntermediateDirectories: false)
    try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: privateDirectory)
    let stored = try DemoProcess("set", "--file", privateDirectory + "/g.json", "7")
    let storedStatus = try await stored.waitForExit()
    let storedErrors = try await stored.allErrors()
    #expect(storedStatus == 0, "\(storedErrors)")
    let before = try FileManager.default.contentsOfDirectory(atPath: privateDirectory).sorted()
    let link = ground.path("planted")
    try await DemoProcess.shellAsNobody("ln -s '\(privateDirectory)' '\(link)'")

    for arguments in [
      ["first-read", "--file", link + "/f.json", "--default", "3"],
      ["first-read", "--suite", link, "--key", "k", "--default", "3"],
      ["get", "--file", link + "/f.json"],
    ] {
      let reader = try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
      let status = try await reader.waitForExit()
      let errors = try await reader.allErrors()
      #expect(status == 0, "\(arguments): \(errors)")
    }
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: privateDirectory).sorted() == before,
      "a read created files through the planted link"
    )
    let reader = try DemoProcess("get", "--file", link + "/g.json")
    #expect(try await reader.allOutput() == ["7"], "a read through the link still reads")

    let writer = try DemoProcess("set", "--file", link + "/f.json", "1")
    #expect(try await writer.waitForExit() == 1)
    let errors = try await writer.allErrors().joined()
    #expect(errors.contains(link) && errors.contains("another user"), "\(errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: privateDirectory).sorted() == before)
  }

  // MARK: Point 3: what a read leaves in a shared directory

  /// In a sticky shared directory (`1777`), root's first read of a key used to leave a root-owned
  /// placeholder (or stored default) and lock file, and from then on `nobody` could never write
  /// that key. A read there creates nothing, and `nobody` writes the key afterwards.
  @Test(arguments: ["file", "suite"])
  func aReadInAStickySharedDirectoryLocksNobodyOut(storage: String) async throws {
    let ground = try Ground(mode: 0o1777)
    let location = storage == "file" ? ["--file", ground.path("f.json")] : ["--suite", ground.directory, "--key", "k"]
    let reader = try TwoUsersTests.asRoot(["first-read"] + location + ["--default", "3"])
    #expect(try await reader.allOutput() == ["3"])
    let read = try await TwoUsersTests.finish(reader)
    #expect(read.status == 0, "\(read.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: ground.directory) == [], "the read left files")

    let written = try await TwoUsersTests.finish(try TwoUsersTests.asNobody(["set"] + location + ["5"]))
    #expect(written.status == 0, "nobody can no longer write the key: \(written.errors)")
    let again = try TwoUsersTests.asRoot(["get"] + location)
    #expect(try await again.allOutput() == ["5"])
  }

  /// root's own directory inside a directory others can write (not sticky): its name could be
  /// swapped for a link between the library's look and its creation, so a read creates nothing
  /// there either.
  @Test func aReadCreatesNothingOnAPathAnotherUserCouldChange() async throws {
    let ground = try Ground(mode: 0o777)
    let inner = ground.path("roots")
    try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: false)
    for arguments in [
      ["first-read", "--file", inner + "/f.json", "--default", "3"],
      ["first-read", "--suite", inner, "--key", "k", "--default", "3"],
    ] {
      let reader = try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
      #expect(try await reader.allOutput() == ["3"], "\(arguments)")
      #expect(try await reader.waitForExit() == 0, "\(arguments)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: inner) == [], "the read left files")
  }

  /// With `fs.protected_regular=1` (systemd's setting), opening another user's existing file
  /// with `O_CREAT` in a sticky directory is refused, to root as well. Root still writes a key
  /// `nobody` created there: the lock file is opened as it is. (The value is removed first, so
  /// that root's first look at the lock file is the write's, not a read's.)
  @Test func rootWritesAKeyNobodyCreatedInAStickyDirectoryUnderProtectedRegular() async throws {
    let previous = try Self.setSysctl("fs.protected_regular", "1")
    defer { Self.restoreSysctl("fs.protected_regular", previous) }
    let ground = try Ground(mode: 0o1777)
    let target = ground.path("f.json")
    let created = try await TwoUsersTests.finish(try TwoUsersTests.asNobody(["set", "--file", target, "1"]))
    #expect(created.status == 0, "\(created.errors)")
    try await DemoProcess.shellAsNobody("rm '\(target)'")
    let written = try await TwoUsersTests.finish(try TwoUsersTests.asRoot(["set", "--file", target, "2"]))
    #expect(written.status == 0, "root cannot write nobody's key: \(written.errors)")
    let read = try TwoUsersTests.asNobody(["get", "--file", target])
    #expect(try await read.allOutput() == ["2"])
  }

  /// A write on purpose leaves root's files; `nobody`'s write then fails with an error that
  /// names the lock file and the real cause, not "could not be read".
  @Test func anotherUsersLockFileIsNamedWithTheRealCause() async throws {
    let ground = try Ground(mode: 0o1777)
    let target = ground.path("f.json")
    let written = try await TwoUsersTests.finish(try TwoUsersTests.asRoot(["set", "--file", target, "1"]))
    #expect(written.status == 0, "\(written.errors)")
    let refused = try await TwoUsersTests.finish(try TwoUsersTests.asNobody(["set", "--file", target, "2"]))
    #expect(refused.status == 1)
    #expect(refused.errors.contains(ground.path(".f.json.sharedstate-lock")), "\(refused.errors)")
    #expect(refused.errors.contains("could not be written") && refused.errors.contains("Permission denied"), "\(refused.errors)")
    #expect(refused.errors.split(separator: "\n").count == 1, "one sentence: \(refused.errors)")
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "1")
  }
}
