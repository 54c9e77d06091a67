import Foundation
import SystemPackage
import Testing
import TestSupport

@testable import SharedState

/// Two users share one directory: root and `nobody` (uid 65534, through `setpriv`), each running
/// `shared-demo`. A write never replaces a value its writer could not read (lost updates), and
/// keeps the file's mode, owner and group, or says in one sentence why it cannot and writes
/// nothing.
///
/// The tests run as root in CI and are skipped elsewhere. Setting `SHARED_DEMO_PATH` to an older
/// build shows what each test guards against.
@Suite("Two users", .serialized, .enabled(if: getuid() == 0, "needs root and a second user"))
struct TwoUsersTests {
  /// A directory every user may write (`0777`, not sticky), in a directory every user may enter.
  final class Ground: Sendable {
    let root: TemporaryDirectory
    let directory: String

    init() throws {
      root = try TemporaryDirectory()
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.url.path)
      directory = root.path("shared")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
      // Set, not created with: the umask would take bits off.
      try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory)
    }

    func path(_ name: String) -> String { directory + "/" + name }
  }

  /// `shared-demo ARGUMENTS` as root, under `umask`.
  static func asRoot(_ arguments: [String], umask: String = "022") throws -> DemoProcess {
    try DemoProcess(
      executable: URL(fileURLWithPath: "/bin/sh"),
      arguments: ["-c", "umask \(umask) && exec \"$0\" \"$@\"", DemoProcess.demoExecutable.path] + arguments
    )
  }

  /// `shared-demo ARGUMENTS` as `nobody`, under `umask`.
  static func asNobody(_ arguments: [String], umask: String = "022") throws -> DemoProcess {
    try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
      arguments: [
        "--reuid=65534", "--regid=65534", "--clear-groups",
        "/bin/sh", "-c", "umask \(umask) && exec \"$0\" \"$@\"", DemoProcess.demoExecutable.path,
      ] + arguments
    )
  }

  /// Runs a process to its end (within `seconds`: a hang fails the test) and returns its status
  /// and standard error.
  static func finish(_ process: DemoProcess, seconds: Double = 120) async throws -> (status: Int32, errors: String) {
    let status = try await process.waitForExit(seconds: seconds)
    return (status, try await process.allErrors().joined(separator: "\n"))
  }

  static func contents(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  static func owner(_ path: String) throws -> (user: Int, mode: Int) {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return ((attributes[.ownerAccountID] as? NSNumber)?.intValue ?? -1, attributes[.posixPermissions] as? Int ?? -1)
  }

  static func startTime(inSeconds seconds: Double) -> String {
    String(UInt64((Date().timeIntervalSince1970 + seconds) * 1e9))
  }

  // MARK: A value that cannot be read is not written over (issue 20, point 1)

  /// `nobody` increments; meanwhile root swaps in a file `nobody` cannot read. The next
  /// `withLock` cannot know the value, so it must not run on the old one and write: the
  /// increments stop with the reason, and the unreadable 500 stays.
  ///
  /// The swap is made holding the file's lock, between two of `nobody`'s transactions: a swap
  /// that takes no lock may land inside one, and then `nobody`'s write rightly comes after it
  /// (last writer wins).
  @Test(arguments: ["file", "suite"])
  func aValueSwappedInUnreadableIsNotWrittenOver(storage: String) async throws {
    let ground = try Ground()
    let target = ground.path("count.json")
    let location = storage == "file" ? ["--file", target] : ["--suite", ground.directory, "--key", "count"]
    // Endless in practice: it must still be running when the swap comes, however slowly this
    // process gets there (a finished counter would exit 0 and leave the 500 alone).
    let counter = try Self.asNobody(["increment"] + location + ["--times", "1000000000", "--report-each"])
    #expect(try await counter.nextLine() == "done 1")
    let staged = ground.path("staged")
    let swap = "printf 500 > '\(staged)' && chmod 000 '\(staged)' && mv '\(staged)' '\(target)'"
    let lockHolder = DiskFile(
      path: FilePath(target), durability: .atomic, filePermissions: .ownerReadWrite,
      directoryPermissions: .ownerReadWriteExecute, maximumReadSize: FileStorage.defaultMaximumReadSize
    )
    let locked = lockHolder.beginTransaction()
    // Without the lock the swap could land inside one of nobody's transactions (see above).
    #expect(locked.readFailure == nil, "root could not take the file's lock: \(String(describing: locked.readFailure))")
    #expect(ChildProcess.run("/bin/sh", ["-c", swap]).status == 0)
    locked.end()

    let (status, errors) = try await Self.finish(counter)
    #expect(status == 1, "the increments went on over a value they could not read")
    #expect(errors.contains("could not be read") && errors.contains("Permission denied"), "\(errors)")
    #expect(try Self.contents(target) == "500", "the unreadable value was written over")
  }

  /// A suite shared by root and `nobody` (files `0600`, as suites make them): the key's file
  /// stays `nobody`'s, since root's writes give it back its owner, so both users go on reading
  /// it and no increment is lost.
  @Test func rootAndNobodyIncrementOneKeyOfASuite() async throws {
    let ground = try Ground()
    let suite = ground.directory
    let created = try await Self.finish(try Self.asNobody(["set", "--suite", suite, "--key", "count", "0"]))
    #expect(created.status == 0, "\(created.errors)")
    // One after the other first: root's first write makes a file of its own for the new value.
    let rootFirst = try await Self.finish(try Self.asRoot(["increment", "--suite", suite, "--key", "count"]))
    #expect(rootFirst.status == 0, "\(rootFirst.errors)")
    let nobodyNext = try await Self.finish(try Self.asNobody(["increment", "--suite", suite, "--key", "count"]))
    #expect(nobodyNext.status == 0, "\(nobodyNext.errors)")
    let start = Self.startTime(inSeconds: 1)
    let arguments = ["increment", "--suite", suite, "--key", "count", "--times", "300", "--report-each", "--start-at", start]
    let workers = [try Self.asRoot(arguments), try Self.asNobody(arguments)]
    var done = 0
    for worker in workers {
      let lines = try await worker.allOutput(seconds: 120)
      done += lines.filter { $0.hasPrefix("done ") }.count
      let (status, errors) = try await Self.finish(worker)
      #expect(status == 0, "\(errors)")
    }
    #expect(done == 600)
    let final = try Self.contents(ground.path("count.json")).trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(final == "\(2 + done)", "increments reported done were lost")
    #expect(try Self.owner(ground.path("count.json")).user == 65534, "root's writes took the file from its owner")
  }

  // MARK: A durable write

  /// `nobody` may write in its directory but not open it (mode `-wx`), so a durable write cannot
  /// flush the directory after replacing the file. It fails before the file is replaced, saying
  /// why, and the stored value stays.
  @Test(arguments: ["file", "suite"])
  func aDurableWriteWhoseDirectoryCannotBeOpenedReplacesNothing(storage: String) async throws {
    let ground = try Ground()
    let directory = ground.path("drop")
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    let target = directory + "/count.json"
    try "5\n".write(toFile: target, atomically: false, encoding: .utf8)
    #expect(chown(directory, 65534, 65534) == 0 && chown(target, 65534, 65534) == 0)
    try FileManager.default.setAttributes([.posixPermissions: 0o300], ofItemAtPath: directory)
    let location = storage == "file" ? ["--file", target] : ["--suite", directory, "--key", "count"]

    let (status, errors) = try await Self.finish(try Self.asNobody(["increment"] + location + ["--fsync"]))
    #expect(status == 1, "a durable write that could not be made durable succeeded")
    #expect(errors.contains("cannot be opened to flush") && errors.contains("Permission denied"), "\(errors)")
    #expect(try Self.contents(target) == "5\n", "the value was replaced by a write reported as failed")
  }

  // MARK: The placeholder file

  /// `nobody` opens a new file key in root's `0755` directory: no placeholder can be made
  /// there, and that is no error. The key reads its default, reports nothing, and creates
  /// nothing.
  @Test func aFirstReadWhereNoFileCanBeMadeIsSilent() async throws {
    let ground = try Ground()
    let target = ground.root.path("count.json")
    let reader = try Self.asNobody(["first-read", "--file", target, "--default", "3"])
    #expect(try await reader.allOutput() == ["3"])
    let (status, errors) = try await Self.finish(reader)
    #expect(status == 0 && errors.isEmpty, "\(errors)")
    #expect(try ground.root.contents() == ["shared"])
  }

  // MARK: A reader that may not write

  /// `nobody` watches a file root writes in root's `0755` directory: it may read the file and
  /// its lock file but write neither. Its looks go through the lock file's page, mapped for
  /// reading only, and each of root's writes reaches it.
  @Test func nobodyWatchesRootsWritesThroughAPageItMayOnlyRead() async throws {
    let ground = try Ground()
    let target = ground.root.path("theme.json")
    #expect(try await Self.finish(try Self.asRoot(["set", "--file", target, "1"])).status == 0)
    let watcher = try Self.asNobody(["watch", "--file", target, "--integer", "--timeout", "120"])
    defer { watcher.kill(SIGTERM) }
    // Its first line is the value it starts from: watching is in place after it.
    #expect(try await watcher.nextLine(seconds: 60).hasSuffix(" 1"))
    for value in 2...4 {
      #expect(try await Self.finish(try Self.asRoot(["set", "--file", target, String(value)])).status == 0)
      // Each write is seen (a line for it, or for a later value that absorbed it).
      var seen = 0
      while seen < value {
        let line = try await watcher.nextLine(seconds: 60)
        seen = Int(line.split(separator: " ").last ?? "") ?? 0
      }
      #expect(seen == value)
    }
  }

  // MARK: Mode and owner (issue 20, point 2)

  /// root and `nobody` increment one `0666` file in a `0777` directory (umask 0): neither may
  /// fail changing a mode that is already right on a file it does not own.
  @Test func rootAndNobodyIncrementOneSharedFile() async throws {
    let ground = try Ground()
    let target = ground.path("count.json")
    try Data("0\n".utf8).write(to: URL(fileURLWithPath: target))
    try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: target)
    // One after the other first (root's write leaves its scratch file, which nobody then
    // writes), then both at once.
    let first = try await Self.finish(try Self.asRoot(["increment", "--file", target], umask: "0"))
    #expect(first.status == 0, "\(first.errors)")
    let second = try await Self.finish(try Self.asNobody(["increment", "--file", target], umask: "0"))
    #expect(second.status == 0, "\(second.errors)")
    let start = Self.startTime(inSeconds: 1)
    let arguments = ["increment", "--file", target, "--times", "300", "--start-at", start]
    let workers = [try Self.asRoot(arguments, umask: "0"), try Self.asNobody(arguments, umask: "0")]
    for worker in workers {
      let (status, errors) = try await Self.finish(worker)
      #expect(status == 0, "\(errors)")
    }
    #expect(try Self.contents(target) == "602")
    #expect(try Self.owner(target).mode == 0o666)
  }

  /// Another user's `0644` file: `nobody` may replace it (the directory lets it), but the new
  /// file would be `nobody`'s and its owner could no longer write it. The write says so and
  /// does not happen.
  @Test func anOwnerThatWouldLoseAccessIsNamedAndNothingIsWritten() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    try Data("1".utf8).write(to: URL(fileURLWithPath: target))
    #expect(chown(target, 1000, 1000) == 0)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target)
    let (status, errors) = try await Self.finish(try Self.asNobody(["set", "--file", target, "2"]))
    #expect(status == 1)
    #expect(errors.contains("its owner, user 1000, cannot be kept") && errors.contains("write access"), "\(errors)")
    #expect(errors.split(separator: "\n").count == 1, "one sentence: \(errors)")
    #expect(try Self.contents(target) == "1")
    let after = try Self.owner(target)
    #expect(after.user == 1000 && after.mode == 0o644)
  }

  /// root writing `nobody`'s `0600` file keeps it `nobody`'s: otherwise `nobody` could no
  /// longer read its own value.
  @Test func rootWritingAnotherUsersFileKeepsItsOwner() async throws {
    let ground = try Ground()
    let target = ground.path("value.json")
    let created = try await Self.finish(try Self.asNobody(["set", "--file", target, "1"], umask: "077"))
    #expect(created.status == 0, "\(created.errors)")
    for value in ["2", "3"] {
      let written = try await Self.finish(try Self.asRoot(["set", "--file", target, value]))
      #expect(written.status == 0, "\(written.errors)")
      let after = try Self.owner(target)
      #expect(after.user == 65534 && after.mode == 0o600, "\(after)")
    }
    let read = try Self.asNobody(["get", "--file", target])
    #expect(try await read.allOutput() == ["3"])
  }
}
