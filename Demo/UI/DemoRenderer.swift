import SharedDemoSuite

/// Turns a ``DemoSnapshot`` into the lines of a window of a given size: a pure function, so
/// that what a window shows can be tested without a terminal.
///
/// No line is wider than the window (longer ones end in `…`), and there are never more lines
/// than it is high: the to-do list scrolls to keep the selected to-do in view.
enum DemoRenderer {
  /// The lines for a window `width` columns wide and `height` rows high.
  static func lines(for snapshot: DemoSnapshot, width: Int, height: Int) -> [String] {
    let width = max(width, 1)
    var top = [
      "SharedState demo: \(snapshot.suite)",
      "Counter: \(snapshot.counter)",
      "",
      "Settings",
    ]
    for toggle in snapshot.toggles {
      top.append(" \(toggle.shortcut) [\(toggle.isOn ? "x" : " ")] \(toggle.title)")
    }
    top.append(" t Theme: \(snapshot.theme.rawValue)")
    top.append("")
    let done = snapshot.todos.filter(\.isDone).count
    top.append("To-dos (\(done)/\(snapshot.todos.count) done)")

    var bottom = [""]
    if let prompt = prompt(for: snapshot.mode) {
      bottom.append(prompt)
    }
    bottom.append(status(of: snapshot))
    if let problem = snapshot.problem {
      bottom.append("! \(problem)")
    }
    bottom += wrap(help(for: snapshot.mode), width: width)

    // When the list does not fit, the blank lines make room first.
    if top.count + max(snapshot.todos.count, 1) + bottom.count > height {
      top.removeAll(where: \.isEmpty)
      bottom.removeAll(where: \.isEmpty)
    }
    let room = max(height - top.count - bottom.count, 1)
    let lines = top + todoLines(snapshot, room: room) + bottom
    return lines.prefix(max(height, 0)).map { truncate(printable($0), width: width) }
  }

  /// The to-do list, at most `room` lines, scrolled so that the selection shows.
  private static func todoLines(_ snapshot: DemoSnapshot, room: Int) -> [String] {
    guard !snapshot.todos.isEmpty else { return ["  (none yet: press a to add one)"] }
    let selection = snapshot.selection ?? 0
    let first = min(max(selection - room + 1, 0), max(snapshot.todos.count - room, 0))
    return snapshot.todos.indices.dropFirst(first).prefix(room).map { index in
      let todo = snapshot.todos[index]
      let marker = index == snapshot.selection && snapshot.mode == .browsing ? ">" : " "
      return "\(marker) [\(todo.isDone ? "x" : " ")] \(todo.title)"
    }
  }

  private static func prompt(for mode: DemoMode) -> String? {
    switch mode {
    case .browsing: nil
    case let .adding(text): "New to-do: \(text)_"
    case let .editing(_, text): "Edit to-do: \(text)_"
    }
  }

  /// The status line: this process, the changes that came from others, and how fast the last
  /// one arrived.
  private static func status(of snapshot: DemoSnapshot) -> String {
    let latency = snapshot.lastLatencyNanoseconds.map(milliseconds) ?? "-"
    return "pid \(snapshot.pid) | from others: \(snapshot.changesFromOthers) | latency: \(latency)"
  }

  /// Nanoseconds as milliseconds with one decimal, `"1.3 ms"`.
  static func milliseconds(_ nanoseconds: UInt64) -> String {
    let tenths = (nanoseconds + 50_000) / 100_000
    return "\(tenths / 10).\(tenths % 10) ms"
  }

  /// The keys and what they do, one phrase each.
  private static func help(for mode: DemoMode) -> [String] {
    switch mode {
    case .browsing:
      let toggleKeys = SettingToggle.all.map { String($0.shortcut) }.joined(separator: "/")
      return [
        "+/- counter", "\(toggleKeys) toggle", "t theme", "a add", "e edit", "space done",
        "d delete", "up/down select", "q quit",
      ]
    case .adding, .editing:
      return ["Enter save", "Esc cancel", "Backspace erase"]
    }
  }

  /// Joins phrases with two spaces into lines no wider than `width`, never splitting a phrase.
  static func wrap(_ phrases: [String], width: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for phrase in phrases {
      if line.isEmpty {
        line = phrase
      } else if line.count + 2 + phrase.count <= width {
        line += "  " + phrase
      } else {
        lines.append(line)
        line = phrase
      }
    }
    if !line.isEmpty { lines.append(line) }
    return lines
  }

  /// `text` with control characters shown as `?`: a title that someone wrote into the file by
  /// hand must not move the cursor or change colours.
  static func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0) ? "?" : $0 }))
  }

  private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
  }

  /// `text` cut to `width` characters, ending in `…` when cut.
  static func truncate(_ text: String, width: Int) -> String {
    guard text.count > width else { return text }
    return String(text.prefix(width - 1)) + "…"
  }
}
