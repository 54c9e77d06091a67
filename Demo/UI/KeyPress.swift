/// A key a person pressed, decoded from the terminal's bytes.
enum KeyPress: Equatable, Sendable {
  /// A printable character (including space).
  case character(Character)
  case up, down, left, right
  case enter, escape, backspace, tab
  /// Ctrl-C: in raw mode it arrives as a byte, not as SIGINT.
  case interrupt
  /// Another control key or escape sequence the demo does not use.
  case unknown
}
