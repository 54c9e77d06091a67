/// Turns successive frames (lines of text) into the ANSI output that updates a terminal from
/// the last frame to the next, rewriting only the lines that changed.
struct FrameWriter {
  private var shown: [String]?

  /// Forgets what the terminal shows, so that the next frame is drawn whole on a cleared
  /// screen: after a resize, when the terminal may have rewrapped or cleared it.
  mutating func invalidate() {
    shown = nil
  }

  /// The output that turns the screen into `frame`, or `nil` when it already shows it.
  mutating func output(for frame: [String]) -> String? {
    guard let shown else {
      self.shown = frame
      var output = "\u{1B}[H\u{1B}[2J"
      for (row, line) in frame.enumerated() {
        output += Self.moveTo(row: row) + line
      }
      return output
    }
    guard frame != shown else { return nil }
    var output = ""
    for row in 0..<max(frame.count, shown.count) {
      let old = row < shown.count ? shown[row] : nil
      let new = row < frame.count ? frame[row] : nil
      guard old != new else { continue }
      // Erase the whole row first: erasing after a line that fills the row would take its last
      // character with it (the cursor stays on the last column).
      output += Self.moveTo(row: row) + "\u{1B}[2K" + (new ?? "")
    }
    self.shown = frame
    return output
  }

  /// The sequence that moves the cursor to the start of a row (0-based).
  private static func moveTo(row: Int) -> String {
    "\u{1B}[\(row + 1);1H"
  }
}
