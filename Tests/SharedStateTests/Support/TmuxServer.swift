import Foundation
import TestSupport

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

  /// Runs a program to its end on a thread of its own (see ``ChildProcess``: not `Process`, whose
  /// children inherit the blocked signals of Swift concurrency's threads; a tmux server started
  /// with SIGCHLD and SIGTERM blocked neither notices its panes' programs ending nor ends when
  /// told to).
  private static func spawn(_ executable: URL, _ arguments: [String]) async -> (Int32, String) {
    await withCheckedContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(returning: ChildProcess.run(executable.path, arguments))
      }
    }
  }

  /// `text` quoted for the shell tmux runs a pane's command with.
  static func quoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
