/// Turns the bytes a terminal in raw mode sends into key presses.
///
/// A multi-byte character split between two reads is kept until its last byte arrives. An
/// escape byte that ends a read is the Escape key: terminals send an arrow key's whole
/// sequence in one write.
struct KeyDecoder {
  private var pending: [UInt8] = []

  /// The keys in `bytes`, after whatever an earlier call left pending.
  mutating func decode(_ bytes: some Sequence<UInt8>) -> [KeyPress] {
    let input = pending + Array(bytes)
    pending = []
    var keys: [KeyPress] = []
    var index = 0
    while index < input.count {
      let byte = input[index]
      switch byte {
      case 0x1B:
        let (key, length) = Self.escapeSequence(in: input[index...])
        keys.append(key)
        index += length
        continue
      case 0x03: keys.append(.interrupt)
      case 0x09: keys.append(.tab)
      case 0x0D, 0x0A: keys.append(.enter)
      case 0x7F, 0x08: keys.append(.backspace)
      case 0x00..<0x20: keys.append(.unknown)
      case 0x20..<0x7F: keys.append(.character(Character(Unicode.Scalar(byte))))
      default:
        guard let length = Self.utf8Length(leadingByte: byte) else {
          keys.append(.unknown)
          break
        }
        guard index + length <= input.count else {
          pending = Array(input[index...])
          return keys
        }
        let text = String(decoding: input[index..<index + length], as: UTF8.self)
        keys.append(text.first.map(KeyPress.character) ?? .unknown)
        index += length
        continue
      }
      index += 1
    }
    return keys
  }

  /// The key that an escape byte starts, and how many bytes it takes.
  private static func escapeSequence(in bytes: ArraySlice<UInt8>) -> (KeyPress, Int) {
    let start = bytes.startIndex
    guard bytes.count > 1, bytes[start + 1] == UInt8(ascii: "[") || bytes[start + 1] == UInt8(ascii: "O")
    else { return (.escape, 1) }
    // CSI and SS3 sequences: parameter bytes, then one final byte.
    var index = start + 2
    while index < bytes.endIndex, (0x30...0x3F).contains(bytes[index]) {
      index += 1
    }
    guard index < bytes.endIndex else { return (.unknown, bytes.count) }
    let key: KeyPress
    switch bytes[index] {
    case UInt8(ascii: "A"): key = .up
    case UInt8(ascii: "B"): key = .down
    case UInt8(ascii: "C"): key = .right
    case UInt8(ascii: "D"): key = .left
    default: key = .unknown
    }
    return (key, index - start + 1)
  }

  /// How many bytes a UTF-8 sequence that starts with `byte` has, or `nil` for a byte that
  /// cannot start one.
  private static func utf8Length(leadingByte byte: UInt8) -> Int? {
    switch byte {
    case 0xC2...0xDF: 2
    case 0xE0...0xEF: 3
    case 0xF0...0xF4: 4
    default: nil
    }
  }
}
