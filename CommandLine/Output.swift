import Foundation

/// Writes the tools' lines, unbuffered, so that a reading script sees each at once.
public enum Output {
  /// Prints a line to standard output and flushes it.
  public static func line(_ text: String) {
    write(text, to: STDOUT_FILENO)
  }

  /// Prints a line to standard error.
  public static func error(_ text: String) {
    write(text, to: STDERR_FILENO)
  }

  /// Writes `text` and a newline to `descriptor` in one `write` (more only when the system takes
  /// part of it). Not through `FileHandle`: a watching command prints a line per change, and
  /// its lock, `Data` and dispatch cost more than the change itself.
  private static func write(_ text: String, to descriptor: Int32) {
    var line = text
    line.append("\n")
    line.withUTF8 { bytes in
      var written = 0
      while written < bytes.count {
        let result = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
        if result > 0 {
          written += result
        } else if result < 0 && errno == EINTR {
          continue
        } else {
          // A closed or full output: nothing more can be told.
          return
        }
      }
    }
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
