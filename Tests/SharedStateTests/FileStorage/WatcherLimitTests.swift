import Foundation
import Testing

/// A process that cannot watch says so, on its state and on `shared-demo watch`'s standard
/// error, and picks up again when it can; it never parks and never corrupts memory.
///
/// inotify's limits are lowered only inside a private user namespace (`unshare --user`), whose
/// `/proc/sys/user/max_inotify_*` bound the processes in it and nothing else: tests running in
/// parallel keep the machine's limits, and nothing needs restoring afterwards.
@Suite("Watcher limits", .serialized)
struct WatcherLimitTests {
  private static let demo = DemoProcess.demoExecutable.path

  /// Runs `shared-demo ARGUMENTS` in a new user namespace whose inotify `limit` is `value`.
  private static func demoWithLimit(_ limit: String, _ value: Int, _ arguments: String...) throws -> DemoProcess {
    let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
    return try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/unshare"),
      arguments: ["--user", "--map-root-user", "/bin/sh", "-c", "echo \(value) > /proc/sys/user/\(limit) && exec '\(demo)' \(quoted)"]
    )
  }

  /// Sets `limit` to `value` in the user namespace of `process`.
  private static func setLimit(_ limit: String, _ value: Int, of process: DemoProcess) async throws {
    let command = "nsenter --user --target \(process.processIdentifier) sh -c 'echo \(value) > /proc/sys/user/\(limit)'"
    #expect(try await DemoProcess.shell(command).waitForExit() == 0)
  }

  /// No inotify instance left, or no watch left (the watcher's own wake-up file takes the one
  /// there is): `watch` prints the value, then one sentence naming the limit, and fails.
  @Test(arguments: [
    ("max_inotify_instances", 0, "max_user_instances"),
    ("max_inotify_watches", 1, "max_user_watches"),
  ])
  func aLimitReachedMakesWatchSaySoAndFail(limit: String, value: Int, named: String) async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    let watcher = try Self.demoWithLimit(limit, value, "watch", "--file", file, "--timeout", "30")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    let error = try await watcher.nextErrorLine()
    #expect(error.contains("cannot be watched") && error.contains(named), "\(error)")
    #expect(try await watcher.waitForExit() == 1)
  }

  /// One-shot commands need no watching: with no inotify instance left, `get`, `increment` and
  /// `set` succeed every time (the state's "cannot be watched" error arrives at a moment of the
  /// watcher's choosing, so failing on it failed at random), while `watch` fails as above.
  @Test(arguments: ["file", "suite"])
  func oneShotCommandsSucceedWithNoInstanceLeft(storage: String) async throws {
    let directory = try TemporaryDirectory()
    let location = storage == "file"
      ? "--file '\(directory.path("value.json"))'" : "--suite '\(directory.url.path)' --key value"
    let script = """
      echo 0 > /proc/sys/user/max_inotify_instances || exit 2
      '\(Self.demo)' set \(location) 0 || exit 1
      for i in $(seq 1 15); do
        '\(Self.demo)' increment \(location) > /dev/null || exit 1
        '\(Self.demo)' get \(location) || exit 1
      done
      """
    let process = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/unshare"),
      arguments: ["--user", "--map-root-user", "/bin/sh", "-c", script]
    )
    let status = try await process.waitForExit(seconds: 180)
    let errors = try await process.allErrors()
    #expect(status == 0, "\(errors)")
    #expect(try await process.allOutput() == (1...15).map(String.init))
  }

  @Test func watchingResumesWhenTheLimitIsLifted() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    let watcher = try Self.demoWithLimit(
      "max_inotify_instances", 0, "watch", "--file", file, "--keep-going", "--timeout", "30"
    )
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await watcher.nextErrorLine().contains("max_user_instances"))
    #expect(try await DemoProcess("set", "--file", file, "1").waitForExit() == 0)
    try await Self.setLimit("max_inotify_instances", 8, of: watcher)
    // Watching resumes within the retry pause (2 s at most), and catches up with the write
    // made while it could not watch.
    #expect(try await watcher.nextLine().hasSuffix(" 1"))
    #expect(try await DemoProcess("set", "--file", file, "2").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 2"))
  }

  @Test func removedAndRecreatedSuiteIsFollowedWithNoInstanceToSpare() async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("suite")
    for key in ["other", "more", "watched"] {
      #expect(try await DemoProcess("set", "--suite", suite, "--key", key, "0").waitForExit() == 0)
    }
    // Its own instance and none more.
    let watcher = try Self.demoWithLimit(
      "max_inotify_instances", 1, "watch", "--suite", suite, "--key", "watched", "--keep-going", "--timeout", "30"
    )
    #expect(try await watcher.nextLine().hasSuffix(" 0"))
    for round in 1...3 {
      #expect(try await DemoProcess.shell("rm -rf '\(suite)' && mkdir '\(suite)'").waitForExit() == 0)
      #expect(try await watcher.nextLine().hasSuffix(" null"), "the removal brings back the default")
      #expect(try await DemoProcess("set", "--suite", suite, "--key", "watched", "\(round)").waitForExit() == 0)
      #expect(try await watcher.nextLine(seconds: 10).hasSuffix(" \(round)"), "round \(round)")
    }
  }

  @Test func aProcessWithManyDescriptorsOpenStillWatches() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    // 1 100 descriptors opened before watching starts: the inotify descriptor would be past
    // 1024, where select() cannot wait on it.
    let watcher = try DemoProcess("watch", "--file", file, "--open-descriptors", "1100", "--timeout", "30")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await DemoProcess("set", "--file", file, "3").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 3"))
  }

  @Test func descriptorsInheritedPastTheLimitAreRefusedClearly() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    // Every slot below 1024 taken before the program even starts: nothing can be reserved.
    let command = """
      ulimit -n 4096 && for i in $(seq 3 1100); do eval "exec $i</dev/null"; done && \
      exec '\(Self.demo)' watch --file '\(file)' --timeout 30
      """
    let watcher = try DemoProcess(executable: URL(fileURLWithPath: "/bin/bash"), arguments: ["-c", command])
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    let error = try await watcher.nextErrorLine()
    #expect(error.contains("select()"), "\(error)")
    #expect(try await watcher.waitForExit() == 1)
  }

  @Test func eventsLostToAFullQueueAreMadeUpFor() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    let watcher = try DemoProcess("watch", "--file", file, "--timeout", "30")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    // Stopped, the watcher reads nothing: fill its queue (fs.inotify.max_queued_events) with
    // other files' events, then change the watched file, whose event the kernel drops.
    let limit = Int(
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "16384"
    ) ?? 16384
    watcher.kill(SIGSTOP)
    defer { watcher.kill(SIGCONT) }
    for name in ["a", "b"] {
      _ = FileManager.default.createFile(atPath: directory.path(name), contents: Data())
    }
    // Closing a file opened for writing is one event; alternating two files keeps the kernel
    // from merging them.
    for index in 0..<(limit + 100) {
      let descriptor = open(directory.path(index.isMultiple(of: 2) ? "a" : "b"), O_WRONLY)
      try #require(descriptor >= 0)
      close(descriptor)
    }
    #expect(try await DemoProcess.shell("echo 5 > '\(file)'").waitForExit() == 0)
    watcher.kill(SIGCONT)
    #expect(try await watcher.nextLine().hasSuffix(" 5"))
  }
}
