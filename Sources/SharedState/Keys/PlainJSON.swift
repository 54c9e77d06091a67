import Foundation

/// The JSON of the commonest setting types, `Int`, `Bool`, `Double` and `String`, written and
/// read without `JSONEncoder` and `JSONDecoder`: byte for byte what Foundation's coders write for
/// such a top-level value, and read as they read it.
///
/// Every change of a setting reaches each watching process through a decoder, and every write
/// goes through an encoder; for a single scalar, the coders' generic machinery costs 0.5–0.9 µs
/// even with warm caches (a fast path here, a scan and a copy). What a fast path here does
/// not take (a string that needs escapes, white space the coders allow, anything unusual) is
/// left to the coders, which decide as they always did.
enum PlainJSON {
  /// Which of the types a value is, asked once per key.
  enum Kind: Sendable {
    case integer
    case boolean
    case double
    case string
  }

  /// The kind of `Value`, or `nil` for any other type (the coders' work).
  static func kind<Value>(of _: Value.Type) -> Kind? {
    if Value.self == Int.self { return .integer }
    if Value.self == Bool.self { return .boolean }
    if Value.self == Double.self { return .double }
    if Value.self == String.self { return .string }
    return nil
  }

  /// The JSON of `value`, of kind `kind`, as `JSONEncoder` writes it, with a final newline when
  /// `endingLine` says so; `nil` for a value the fast path leaves to the encoder (a string that
  /// needs escapes, a `Double` that is not finite, which the encoder's strategy decides).
  ///
  /// - Parameter escapingSlashes: Whether the encoder writes `/` as `\/`, as `JSONEncoder` does
  ///   unless told `.withoutEscapingSlashes`.
  static func text<Value>(of value: Value, as kind: Kind, escapingSlashes: Bool, endingLine: Bool) -> FileContents? {
    switch kind {
    case .integer:
      return JSONInteger.text(of: cast(value, to: Int.self), endingLine: endingLine)
    case .boolean:
      let text = cast(value, to: Bool.self) ? "true" : "false"
      return FileContents(Data((endingLine ? text + "\n" : text).utf8))
    case .double:
      return doubleText(cast(value, to: Double.self), endingLine: endingLine)
    case .string:
      return stringText(cast(value, to: String.self), escapingSlashes: escapingSlashes, endingLine: endingLine)
    }
  }

  /// A value the fast path read: concrete, so that a key's decoder, which runs generic code,
  /// unwraps an optional of a known type and casts the value once, rather than handling an
  /// `Optional<Value>` of a type known only at run time.
  enum Parsed {
    case integer(Int)
    case boolean(Bool)
    case double(Double)
    case string(String)

    /// The value as `Value`, the type whose kind was read.
    func value<Value>(as _: Value.Type) -> Value {
      switch self {
      case let .integer(integer): cast(integer, to: Value.self)
      case let .boolean(boolean): cast(boolean, to: Value.self)
      case let .double(double): cast(double, to: Value.self)
      case let .string(string): cast(string, to: Value.self)
      }
    }
  }

  /// The value of kind `kind` that `contents` hold, written as
  /// ``text(of:as:escapingSlashes:endingLine:)`` writes it (with or without a final newline);
  /// `nil` for anything else, which the caller then gives to its decoder.
  static func parse(_ contents: FileContents, as kind: Kind) -> Parsed? {
    switch kind {
    case .integer:
      guard let integer = JSONInteger.value(in: contents) else { return nil }
      return .integer(integer)
    case .boolean:
      let boolean = contents.withUnsafeBytes { bytes -> Bool? in
        switch withoutFinalNewline(bytes).count {
        case 4: bytes.starts(with: "true".utf8) ? true : nil
        case 5: bytes.starts(with: "false".utf8) ? false : nil
        default: nil
        }
      }
      guard let boolean else { return nil }
      return .boolean(boolean)
    case .double:
      guard let double = doubleValue(in: contents) else { return nil }
      return .double(double)
    case .string:
      guard let string = stringValue(in: contents) else { return nil }
      return .string(string)
    }
  }

  /// A string's JSON: its UTF-8 between quotes, when nothing in it needs escaping but `/`.
  private static func stringText(_ string: String, escapingSlashes: Bool, endingLine: Bool) -> FileContents? {
    var string = string
    return string.withUTF8 { utf8 -> FileContents? in
      var count = utf8.count + 2 + (endingLine ? 1 : 0)
      for byte in utf8 {
        if mustBeEscaped(byte) { return nil }
        if escapingSlashes, byte == UInt8(ascii: "/") { count += 1 }
      }
      // Written on the stack (a setting's JSON is short), then copied into the contents.
      return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
        var index = 0
        func append(_ byte: UInt8) {
          buffer[index] = byte
          index += 1
        }
        append(UInt8(ascii: "\""))
        for byte in utf8 {
          if escapingSlashes, byte == UInt8(ascii: "/") { append(UInt8(ascii: "\\")) }
          append(byte)
        }
        append(UInt8(ascii: "\""))
        if endingLine { append(UInt8(ascii: "\n")) }
        return FileContents(copying: UnsafeRawBufferPointer(buffer))
      }
    }
  }

  /// A finite `Double` as `JSONEncoder` writes it (see ``encoderText(_:)``).
  private static func doubleText(_ value: Double, endingLine: Bool) -> FileContents? {
    guard value.isFinite else { return nil }
    var text = encoderText(value)
    if endingLine { text.append("\n") }
    return text.utf8.withContiguousStorageIfAvailable { FileContents(copying: UnsafeRawBufferPointer($0)) }
      ?? FileContents(Data(text.utf8))
  }

  /// The `Double` whose text ``doubleText(_:endingLine:)`` writes, when `contents` hold exactly
  /// that text; `nil` for anything else. Other spellings of a number (`1.50`, `1E2`) and text
  /// `Double` reads but JSON forbids (`01`, `.5`, `+1`) or the decoder refuses (`1e400`) are
  /// the decoder's.
  private static func doubleValue(in contents: FileContents) -> Double? {
    contents.withUnsafeBytes { bytes -> Double? in
      let text = withoutFinalNewline(bytes)
      // The characters of a number (no `inf`, `nan` or hexadecimal), and no longer than
      // `description` makes one.
      guard !text.isEmpty, text.count <= 32, !text.contains(where: { !isNumberCharacter($0) }) else { return nil }
      let string = String(decoding: text, as: UTF8.self)
      guard let value = Double(string), value.isFinite else { return nil }
      return encoderText(value) == string ? value : nil
    }
  }

  /// The text `JSONEncoder` writes for a finite `value`: Swift's shortest text that reads back
  /// as the same value (`description`), without a final `.0`.
  private static func encoderText(_ value: Double) -> String {
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    return text
  }

  /// Whether `byte` may appear in a JSON number: a digit, a sign, a point or an exponent mark.
  private static func isNumberCharacter(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
  }

  /// The string a JSON string with no escapes holds; `nil` for anything else (escapes, bytes
  /// that are not UTF-8, control characters JSON forbids, anything around the string).
  private static func stringValue(in contents: FileContents) -> String? {
    contents.withUnsafeBytes { bytes -> String? in
      let text = withoutFinalNewline(bytes)
      guard text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else { return nil }
      let inside = UnsafeRawBufferPointer(rebasing: text[1..<(text.count - 1)])
      guard !inside.contains(where: mustBeEscaped) else { return nil }
      return String(validating: inside, as: UTF8.self)
    }
  }

  /// Whether JSON requires `byte` escaped inside a string: a quotation mark, a backslash, a
  /// control character.
  private static func mustBeEscaped(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
  }

  /// `bytes` without one final newline, if they end with one.
  private static func withoutFinalNewline(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    guard bytes.last == UInt8(ascii: "\n") else { return bytes }
    return UnsafeRawBufferPointer(rebasing: bytes.dropLast())
  }

  /// `value` as `Target`, a type the caller has checked it is: a bit cast from a type to itself
  /// (a dynamic cast, `as!`, would look the types up at run time on every value).
  private static func cast<Source, Target>(_ value: Source, to _: Target.Type) -> Target {
    precondition(Source.self == Target.self)
    return unsafeBitCast(value, to: Target.self)
  }
}
