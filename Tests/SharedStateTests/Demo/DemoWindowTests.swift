import Foundation
import Testing

/// `shared-demo ui` as a person uses it: two windows side by side in tmux on one suite; keys
/// typed into one change what the other shows, with no key pressed there.
///
/// The test process itself opens no shared state: only the two demo processes watch the suite.
@Suite struct DemoWindowTests {
  @Test func twoWindowsFollowEachOther() async throws {
    let tmux = try TmuxServer()
    let suite = try TemporaryDirectory()
    do {
      try await drive(tmux, suite: suite)
    } catch {
      await tmux.kill()
      throw error
    }
    await tmux.kill()
  }

  private func drive(_ tmux: TmuxServer, suite: TemporaryDirectory) async throws {
    let command = "\(TmuxServer.quoted(DemoProcess.demoExecutable.path)) ui --suite \(TmuxServer.quoted(suite.url.path))"
    // Panes by id (%N): positions change when a pane closes.
    let left = try await tmux.run(
      "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "demo", "-x", "200", "-y", "50", command
    ).trimmingCharacters(in: .whitespacesAndNewlines)
    let right = try await tmux.run("split-window", "-h", "-P", "-F", "#{pane_id}", "-t", left, command)
      .trimmingCharacters(in: .whitespacesAndNewlines)
    try await tmux.waitUntil(left, shows: "Counter: 0")
    try await tmux.waitUntil(right, shows: "Counter: 0")

    // The counter.
    try await tmux.run("send-keys", "-t", left, "-l", "+")
    try await tmux.waitUntil(right, shows: "Counter: 1")
    try await tmux.run("send-keys", "-t", right, "-l", "++-+")
    try await tmux.waitUntil(left, shows: "Counter: 3")

    // A toggle, and the theme.
    try await tmux.run("send-keys", "-t", left, "-l", "2t")
    try await tmux.waitUntil(right, shows: "2 [x] Sound")
    try await tmux.waitUntil(right, shows: "Theme: light")

    // A to-do: added on the right, edited and marked done on the left.
    try await tmux.run("send-keys", "-t", right, "-l", "aBuy milk")
    try await tmux.waitUntil(right, shows: "New to-do: Buy milk_")
    try await tmux.run("send-keys", "-t", right, "Enter")
    try await tmux.waitUntil(left, shows: "> [ ] Buy milk")
    try await tmux.run("send-keys", "-t", left, "-l", "e")
    try await tmux.run("send-keys", "-t", left, "BSpace", "BSpace", "BSpace", "BSpace")
    try await tmux.run("send-keys", "-t", left, "-l", "oats")
    try await tmux.run("send-keys", "-t", left, "Enter")
    try await tmux.waitUntil(right, shows: "> [ ] Buy oats")
    try await tmux.run("send-keys", "-t", left, "Space")
    try await tmux.waitUntil(right, shows: "> [x] Buy oats")
    #expect(try await !tmux.capture(right).contains("Buy milk"))

    // Each window counts the other's changes: each made 5 (+ - and a toggle count one each,
    // typing counts none, adding or editing a to-do one).
    try await tmux.waitUntil(left, shows: "from others: 5 |")
    try await tmux.waitUntil(right, shows: "from others: 5 |")
    #expect(try await tmux.capture(right).contains(" ms"), "the latency of the last change shows")

    // q quits each window; then no pane is left.
    try await tmux.run("send-keys", "-t", left, "-l", "q")
    try await tmux.run("send-keys", "-t", right, "-l", "q")
    try await tmux.waitUntilEmpty()
  }
}
