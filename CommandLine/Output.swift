import Foundation

/// Writes the tools' lines, unbuffered, so that a reading script sees each at once.
public enum Output {
  /// Prints a line to standard output and flushes it.
  public static func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
  }

  /// Prints a line to standard error.
  public static func error(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Prints `sentence` on standard error as `PROGRAM: SENTENCE.`, adding the full stop when it
  /// has none.
  public static func failure(_ sentence: String, program: String) {
    error("\(program): \(sentence)\(sentence.hasSuffix(".") ? "" : ".")")
  }

  /// The time now as nanoseconds since the Unix epoch.
  public static func unixNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
  }
}
