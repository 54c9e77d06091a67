import SharedDemoSuite

/// Something the demo's window reacts to.
enum DemoEvent: Sendable {
  /// Bytes arrived from the terminal.
  case input([UInt8])
  /// The window changed size (SIGWINCH).
  case resized
  /// Some shared value changed.
  case changed
  /// `last-change` has a new value, seen at this time (nanoseconds since the Unix epoch).
  case lastChange(LastChange?, receivedAt: UInt64)
  /// SIGINT, SIGTERM or SIGHUP, or standard input closed: time to restore the terminal and go.
  case terminate
}
