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

  /// Writes `text` and a newline to `descriptor` in one `writev` (more calls only when the system
  /// takes part of it), with no copy of `text`. Not through `FileHandle`: a watching command
  /// prints a line per change, and its lock, `Data` and copies cost more than the change itself
  /// (a 24 MB value printed whole was copied twice).
  private static func write(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
      var newline = UInt8(ascii: "\n")
      withUnsafeMutablePointer(to: &newline) { newlinePointer in
        var parts = [
          iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count),
          iovec(iov_base: UnsafeMutableRawPointer(newlinePointer), iov_len: 1),
        ]
        var left = bytes.count + 1
        var first = 0
        while left > 0 {
          let written = parts.withUnsafeMutableBufferPointer { parts in
            writev(descriptor, parts.baseAddress! + first, Int32(parts.count - first))
          }
          if written < 0 {
            if errno == EINTR { continue }
            // A closed or full output: nothing more can be told.
            return
          }
          left -= written
          // Skip what was written: whole parts, then the start of the next.
          var skip = written
          while first < parts.count, skip >= parts[first].iov_len {
            skip -= parts[first].iov_len
            first += 1
          }
          if first < parts.count, skip > 0 {
            parts[first].iov_base = parts[first].iov_base.map { $0 + skip }
            parts[first].iov_len -= skip
          }
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
