import Foundation

/// Writes the tool's lines, unbuffered, so that a reading script sees each at once.
enum Output {
  /// Prints a line to standard output and flushes it.
  static func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  /// Prints a line to standard error.
  static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// The time now as nanoseconds since the Unix epoch.
  static func unixNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }
}
