import Foundation

extension JSONValue {
  /// Parses JSON bytes (RFC 8259; any value at the top, as `JSONDecoder` takes it) in one pass.
  ///
  /// `JSONValue`'s `Decodable` conformance must guess each value's type by trying one after the
  /// other, and every wrong guess throws a `DecodingError` (about twenty per element of an array
  /// of small objects): five times the work of parsing. This reads each token once.
  ///
  /// - Throws: ``JSONParsingError`` for bytes that are not one JSON value.
  public init(json data: Data) throws {
    self = try data.withUnsafeBytes { bytes in
      var parser = JSONBytesParser(bytes: bytes)
      let value = try parser.parseDocument()
      return value
    }
  }
}

/// The error for bytes that are not one JSON value.
public struct JSONParsingError: Error, CustomStringConvertible {
  /// Where the problem is, in bytes from the start.
  public let offset: Int
  /// What is wrong there, such as "expected ':'".
  public let problem: String
  /// The problem and where it is.
  public var description: String { "not valid JSON at byte \(offset): \(problem)" }
}

/// A recursive-descent JSON parser over raw bytes.
private struct JSONBytesParser {
  let bytes: UnsafeRawBufferPointer
  var position = 0
  /// Nesting is bounded, as `JSONDecoder`'s is: deep nesting would overflow the stack.
  var depth = 0
  static let maximumDepth = 512

  init(bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  mutating func parseDocument() throws -> JSONValue {
    // A UTF-8 byte order mark is skipped, as JSONDecoder skips it.
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    skipWhitespace()
    let value = try parseValue()
    skipWhitespace()
    guard position == bytes.count else { throw failure("unexpected bytes after the value") }
    return value
  }

  private func failure(_ problem: String) -> JSONParsingError {
    JSONParsingError(offset: position, problem: problem)
  }

  private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

  private mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
      position += 1
    }
  }

  private mutating func expect(_ literal: StaticString) throws {
    let count = literal.utf8CodeUnitCount
    guard position + count <= bytes.count,
      memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0
    else { throw failure("expected \(literal)") }
    position += count
  }

  private mutating func parseValue() throws -> JSONValue {
    guard let byte = current else { throw failure("unexpected end") }
    switch byte {
    case UInt8(ascii: "{"): return try nested { try $0.parseObject() }
    case UInt8(ascii: "["): return try nested { try $0.parseArray() }
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"):
      try expect("true")
      return .bool(true)
    case UInt8(ascii: "f"):
      try expect("false")
      return .bool(false)
    case UInt8(ascii: "n"):
      try expect("null")
      return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw failure("unexpected character")
    }
  }

  private mutating func nested(_ parse: (inout Self) throws -> JSONValue) throws -> JSONValue {
    depth += 1
    defer { depth -= 1 }
    guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
    return try parse(&self)
  }

  private mutating func parseObject() throws -> JSONValue {
    position += 1
    var object: [String: JSONValue] = [:]
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      position += 1
      return .object(object)
    }
    while true {
      skipWhitespace()
      guard current == UInt8(ascii: "\"") else { throw failure("expected a key") }
      let key = try parseString()
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
      position += 1
      skipWhitespace()
      // A repeated key keeps its first value, as JSONDecoder does.
      let value = try parseValue()
      if object[key] == nil { object[key] = value }
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        position += 1
        // A comma before the end is taken, as JSONDecoder takes it.
        skipWhitespace()
        if current == UInt8(ascii: "}") {
          position += 1
          return .object(object)
        }
      case UInt8(ascii: "}"):
        position += 1
        return .object(object)
      default: throw failure("expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray() throws -> JSONValue {
    position += 1
    var array: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      position += 1
      return .array(array)
    }
    while true {
      skipWhitespace()
      array.append(try parseValue())
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","):
        position += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
          position += 1
          return .array(array)
        }
      case UInt8(ascii: "]"):
        position += 1
        return .array(array)
      default: throw failure("expected ',' or ']'")
      }
    }
  }

  private mutating func parseString() throws -> String {
    position += 1
    let start = position
    // Most strings have no escape: take their bytes as they are.
    while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
      guard byte >= 0x20 else { throw failure("control character in a string") }
      position += 1
    }
    guard current != nil else { throw failure("unterminated string") }
    var utf8 = Array(bytes[start..<position])
    while let byte = current {
      position += 1
      switch byte {
      case UInt8(ascii: "\""):
        guard let string = String(validating: utf8, as: UTF8.self) else {
          throw JSONParsingError(offset: start, problem: "a string that is not UTF-8")
        }
        return string
      case UInt8(ascii: "\\"):
        try appendEscape(to: &utf8)
      case ..<0x20:
        throw failure("control character in a string")
      default:
        utf8.append(byte)
      }
    }
    throw failure("unterminated string")
  }

  private mutating func appendEscape(to utf8: inout [UInt8]) throws {
    guard let byte = current else { throw failure("unterminated escape") }
    position += 1
    switch byte {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
    case UInt8(ascii: "b"): utf8.append(0x08)
    case UInt8(ascii: "f"): utf8.append(0x0C)
    case UInt8(ascii: "n"): utf8.append(0x0A)
    case UInt8(ascii: "r"): utf8.append(0x0D)
    case UInt8(ascii: "t"): utf8.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = UInt32(try parseHexQuad())
      if (0xD800..<0xDC00).contains(scalar) {
        // A high surrogate must be followed by an escaped low one.
        guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u")
        else { throw failure("a lone surrogate") }
        position += 2
        let low = UInt32(try parseHexQuad())
        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00..<0xE000).contains(scalar) {
        throw failure("a lone surrogate")
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw failure("an invalid code point") }
      utf8.append(contentsOf: String(Character(unicode)).utf8)
    default:
      throw failure("an invalid escape")
    }
  }

  private mutating func parseHexQuad() throws -> UInt16 {
    guard position + 4 <= bytes.count else { throw failure("a short \\u escape") }
    var value: UInt16 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt8
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
      default: throw failure("a bad \\u escape")
      }
      value = value << 4 | UInt16(digit)
      position += 1
    }
    return value
  }

  private mutating func parseNumber() throws -> JSONValue {
    let start = position
    var isInteger = true
    if current == UInt8(ascii: "-") { position += 1 }
    // The grammar: an integer part without leading zeros, then a fraction, then an exponent.
    guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw failure("a number without digits")
    }
    position += 1
    if first != UInt8(ascii: "0") { skipDigits() }
    if current == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard skipDigits() > 0 else { throw failure("a fraction without digits") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      guard skipDigits() > 0 else { throw failure("an exponent without digits") }
    }
    let text = String(decoding: bytes[start..<position], as: UTF8.self)
    // A number that is an integer Int can hold exactly is an integer (1.0, 1e2 and -0 too); the
    // rest are doubles, as the Decodable conformance reads them.
    if isInteger, let integer = Int(text) { return .integer(integer) }
    guard let number = Double(text), number.isFinite else {
      throw JSONParsingError(offset: start, problem: "a number out of range")
    }
    // An integer beyond Int is kept as it was written (the grammar allows no leading zeros, and
    // "-0" is an Int): a Double would print 2^64 as 1.8446744073709552e+19, and round -2^63-1
    // to Int.min.
    if isInteger { return .largeInteger(text) }
    if let integer = Int(exactly: number) { return .integer(integer) }
    // A whole number written with an exponent, as the Decodable conformance reads it.
    if let large = JSONValue.exactInteger(number, decimal: { Decimal(string: text) }) { return large }
    return .number(number)
  }

  @discardableResult
  private mutating func skipDigits() -> Int {
    let start = position
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
    return position - start
  }
}

extension JSONValue {
  /// One line of compact JSON with sorted keys, exactly as `JSONEncoder` writes it with
  /// `.sortedKeys` and `.withoutEscapingSlashes`, but written directly: the `Encodable` detour
  /// took six times as long.
  public var compactJSON: String {
    var output: [UInt8] = []
    write(to: &output)
    return String(decoding: output, as: UTF8.self)
  }

  private func write(to output: inout [UInt8]) {
    switch self {
    case .null: output.append(contentsOf: "null".utf8)
    case let .bool(bool): output.append(contentsOf: (bool ? "true" : "false").utf8)
    case let .integer(integer): output.append(contentsOf: String(integer).utf8)
    case let .largeInteger(digits): output.append(contentsOf: digits.utf8)
    case let .number(number): output.append(contentsOf: Self.text(of: number).utf8)
    case let .string(string): Self.write(string, to: &output)
    case let .array(array):
      output.append(UInt8(ascii: "["))
      for (index, element) in array.enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        element.write(to: &output)
      }
      output.append(UInt8(ascii: "]"))
    case let .object(object):
      output.append(UInt8(ascii: "{"))
      for (index, key) in object.keys.sorted(by: Self.precedes).enumerated() {
        if index > 0 { output.append(UInt8(ascii: ",")) }
        Self.write(key, to: &output)
        output.append(UInt8(ascii: ":"))
        object[key]!.write(to: &output)
      }
      output.append(UInt8(ascii: "}"))
    }
  }

  /// The order of `JSONEncoder`'s `.sortedKeys`.
  static func precedes(_ first: String, _ second: String) -> Bool {
    first < second
  }

  /// A double as `JSONEncoder` writes it: Swift's shortest description, without a trailing ".0".
  static func text(of number: Double) -> String {
    let description = number.description
    return description.hasSuffix(".0") ? String(description.dropLast(2)) : description
  }

  private static func write(_ string: String, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    for byte in string.utf8 {
      switch byte {
      case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
      case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
      case 0x08: output.append(contentsOf: #"\b"#.utf8)
      case 0x0C: output.append(contentsOf: #"\f"#.utf8)
      case 0x0A: output.append(contentsOf: #"\n"#.utf8)
      case 0x0D: output.append(contentsOf: #"\r"#.utf8)
      case 0x09: output.append(contentsOf: #"\t"#.utf8)
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        output.append(contentsOf: #"\u00"#.utf8)
        output.append(hex[Int(byte >> 4)])
        output.append(hex[Int(byte & 0xF)])
      default: output.append(byte)
      }
    }
    output.append(UInt8(ascii: "\""))
  }
}
