import Foundation

/// The JSON of an `Int`, written and read without `JSONEncoder` and `JSONDecoder`: a counter is
/// the most common shared value, and for one `Int` the encoder's generic machinery (metadata
/// look-ups, a dynamic cast) took 2–7 % of an increment's time. Byte for byte what Foundation's
/// coders write for a top-level `Int`, and a value they read the same way.
enum JSONInteger {
  /// The JSON of `value`, as `JSONEncoder` writes it: a minus sign if negative, then decimal
  /// digits; then a newline when `endingLine` says so.
  static func text(of value: Int, endingLine: Bool = false) -> FileContents {
    // Digits from the last, on the stack: `Int.min` has 19 and a sign. Held inline, no value
    // costs an allocation.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
      var magnitude = value.magnitude
      var end = buffer.count
      if endingLine {
        end -= 1
        buffer[end] = UInt8(ascii: "\n")
      }
      var start = end
      repeat {
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if value < 0 {
        start -= 1
        buffer[start] = UInt8(ascii: "-")
      }
      return FileContents(copying: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[start...])))
    }
  }

  /// The `Int` of JSON written as ``text(of:)`` writes it, with or without a final newline; `nil`
  /// for anything else, which the caller then gives to its decoder as it always did.
  ///
  /// Read digit by digit from the bytes: every change another process makes to an `Int` comes
  /// through here, and a `String` made to parse would be an allocation and a copy each time.
  static func value(in contents: FileContents) -> Int? {
    contents.withUnsafeBytes { bytes -> Int? in
      var end = bytes.count
      if end > 0, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
      let isNegative = end > 0 && bytes[0] == UInt8(ascii: "-")
      var index = isNegative ? 1 : 0
      // JSON has no leading zero and no plus sign.
      guard end > index, bytes[index] != UInt8(ascii: "0") || end - index == 1 else { return nil }
      // Summed as a negative number: `Int.min` has no positive counterpart.
      var negated = 0
      while index < end {
        let digit = bytes[index] &- UInt8(ascii: "0")
        guard digit <= 9 else { return nil }
        let (tens, tensOverflow) = negated.multipliedReportingOverflow(by: 10)
        let (next, overflow) = tens.subtractingReportingOverflow(Int(digit))
        guard !tensOverflow, !overflow else { return nil }
        negated = next
        index += 1
      }
      if isNegative { return negated }
      return negated == .min ? nil : -negated
    }
  }
}
