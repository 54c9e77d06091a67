import Foundation

/// A tmux server of a test's own (its own socket, no configuration file), driven as a person
/// would drive terminals: start programs in panes, type into them, read what they show.
final class TmuxServer: Sendable {
  /// The error when tmux cannot be found.
  struct Unavailable: Error, CustomStringConvertible {
    var description: String {
      "tmux is not installed, and this test drives the demo through it: install it with "
        + "'apt-get install -y tmux' (scripts/test.sh does that)."
    }
  }

  /// The error when a pane does not show what a test waits for.
  struct PaneMismatch: Error, CustomStringConvertible {
    let description: String
  }

  let socket = "sharedstate-test-\(UUID().uuidString.prefix(8))"
  private let executable: URL

  /// Finds tmux on the `PATH`.
  init() throws {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    let candidates = path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("tmux") }
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
      throw Unavailable()
    }
    executable = found
  }

  /// Runs a tmux command on this server and returns what it printed.
  @discardableResult
  func run(_ arguments: String...) async throws -> String {
    let (status, output) = await Self.spawn(executable, ["-L", socket, "-f", "/dev/null"] + arguments)
    guard status == 0 else {
      throw PaneMismatch(description: "tmux \(arguments) failed (status \(status)): \(output)")
    }
    return output
  }

  /// What the pane shows now.
  func capture(_ pane: String) async throws -> String {
    try await run("capture-pane", "-p", "-t", pane)
  }

  /// Waits until the pane shows `text`, checking every 50 ms; fails after `seconds` with what
  /// it showed last.
  func waitUntil(_ pane: String, shows text: String, seconds: Double = 20) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    var screen = ""
    while ContinuousClock.now < deadline {
      screen = try await capture(pane)
      if screen.contains(text) { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw PaneMismatch(description: "pane \(pane) did not show \(String(reflecting: text)) within \(seconds) s; it showed:\n\(screen)")
  }

  /// Waits until no session is left (every program in it ended); fails after `seconds`.
  func waitUntilEmpty(seconds: Double = 20) async throws {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
      if (try? await run("list-panes", "-a")) == nil { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    throw PaneMismatch(description: "the panes were still open after \(seconds) s")
  }

  /// Ends the server and every program in it. Safe to call when it has ended.
  func kill() async {
    _ = await Self.spawn(executable, ["-L", socket, "kill-server"])
  }

  /// Runs a program to its end on a thread of its own and returns its exit status (-1 when it
  /// did not exit normally) and what it printed on standard output and error.
  ///
  /// Not `Process`: that passes on the signal mask of the thread that starts it, and the threads
  /// Swift concurrency runs on block nearly every signal. A tmux server started with SIGCHLD
  /// and SIGTERM blocked neither notices its panes' programs ending nor ends when told to.
  private static func spawn(_ executable: URL, _ arguments: [String]) async -> (Int32, String) {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(returning: spawnAndWait(executable.path, arguments))
      }
    }
  }

  static func spawnAndWait(_ path: String, _ arguments: [String]) -> (Int32, String) {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    // Output goes to a file the child opens itself: a pipe made here could leak into programs
    // that other tests start meanwhile and keep its end open.
    let outputPath = FileManager.default.temporaryDirectory
      .appendingPathComponent("sharedstate-tmux-\(UUID().uuidString)").path
    defer { unlink(outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard spawned == 0 else { return (-1, "posix_spawn \(path) failed: errno \(spawned)") }

    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let exited = status & 0x7F == 0
    let output = FileManager.default.contents(atPath: outputPath) ?? Data()
    return (exited ? (status >> 8) & 0xFF : -1, String(decoding: output, as: UTF8.self))
  }

  /// `text` quoted for the shell tmux runs a pane's command with.
  static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
