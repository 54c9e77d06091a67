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

  /// Prints `<nanoseconds> <text>` as one line, the number formatted on the stack: a watching
  /// command prints one such line per change.
  public static func line(stampedAt nanoseconds: UInt64, _ text: String) {
    // 20 digits hold any UInt64; one byte more for the space.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
      buffer[20] = UInt8(ascii: " ")
      var start = 20
      var value = nanoseconds
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(value % 10)
        value /= 10
      } while value > 0
      write(text, to: STDOUT_FILENO, after: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[start...])))
    }
  }

  /// Writes `prefix`, `text` and a newline to `descriptor` in one `writev` (more calls only when
  /// the system takes part of it), with no copy of `text`. Not through `FileHandle`: a watching
  /// command prints a line per change, and its lock, `Data` and copies cost more than the change
  /// itself (a 24 MB value printed whole was copied twice).
  private static func write(
    _ text: String, to descriptor: Int32, after prefix: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
  ) {
    var text = text
    text.withUTF8 { bytes in
      var newline = UInt8(ascii: "\n")
      withUnsafeMutablePointer(to: &newline) { newlinePointer in
        // On the stack: an array of them was one more allocation per line.
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: 3) { parts in
          parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: prefix.baseAddress), iov_len: prefix.count)
          parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count)
          parts[2] = iovec(iov_base: UnsafeMutableRawPointer(newlinePointer), iov_len: 1)
          var left = prefix.count + bytes.count + 1
          var first = 0
          while left > 0 {
            let written = writev(descriptor, parts.baseAddress! + first, Int32(parts.count - first))
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
