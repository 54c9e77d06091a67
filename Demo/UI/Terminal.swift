import Foundation
import SharedStateCommandLine

/// The terminal the demo draws on: raw mode, the alternate screen and a hidden cursor while it
/// is open, and everything as it was after ``restore()``.
final class Terminal {
  private var original: termios
  private var isRestored = false

  /// Switches standard input to raw mode and standard output to the alternate screen.
  ///
  /// - Throws: ``CommandError`` when standard input or output is not a terminal.
  init() throws {
    guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
      throw CommandError("'ui' needs a terminal; run it in a terminal window (or see scripts/demo.sh)")
    }
    var settings = termios()
    guard tcgetattr(STDIN_FILENO, &settings) == 0 else {
      throw CommandError("The terminal's settings could not be read")
    }
    original = settings
    // Raw input: bytes as they are typed, no echo, Ctrl-C and Ctrl-Z as bytes, no flow control
    // and no CR-to-NL translation. Output processing stays on.
    settings.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
    settings.c_iflag &= ~tcflag_t(IXON | ICRNL | BRKINT | INPCK | ISTRIP)
    withUnsafeMutableBytes(of: &settings.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &settings) == 0 else {
      throw CommandError("The terminal could not be switched to raw mode")
    }
    // Alternate screen, hidden cursor.
    write("\u{1B}[?1049h\u{1B}[?25l")
  }

  /// The window's size in columns and rows (80 × 24 when the terminal does not say).
  var size: (width: Int, height: Int) {
    var window = winsize()
    guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0
    else { return (80, 24) }
    return (Int(window.ws_col), Int(window.ws_row))
  }

  /// Writes `text` to the terminal, all of it.
  func write(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return  // The terminal went away; there is nobody left to draw for.
      }
      bytes = bytes.dropFirst(written)
    }
  }

  /// Shows the cursor, leaves the alternate screen and puts the terminal's settings back.
  /// Safe to call more than once.
  func restore() {
    guard !isRestored else { return }
    isRestored = true
    write("\u{1B}[?25h\u{1B}[?1049l")
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
  }

  deinit {
    restore()
  }
}
