import Foundation

/// Any JSON value, so that the tools can store and print whatever a file or key holds.
public enum JSONValue: Codable, Equatable, Sendable {
  /// `null`.
  case null
  /// `true` or `false`.
  case bool(Bool)
  /// A number that is an integer `Int` holds exactly (`1`, and also `1.0`, `1e2` and `-0`).
  case integer(Int)
  /// An integer outside `Int`'s range, as its decimal digits (after a `-` when negative), kept
  /// exactly: a `Double` would print 2^64 as `1.8446744073709552e+19`.
  case largeInteger(String)
  /// Any other number.
  case number(Double)
  /// A string.
  case string(String)
  /// An array.
  case array([JSONValue])
  /// An object; its keys print sorted.
  case object([String: JSONValue])

  /// Decodes any JSON value.
  ///
  /// An integer beyond `Int` reaches a decoder as a `Double`; it is read again as a `Decimal`,
  /// whose 38 digits hold it exactly, so that 2^64 stays 18446744073709551616.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // Each wrong guess costs a thrown error: integers, the tools' most common values, first.
    // (JSON's numbers never decode as booleans, nor booleans as numbers.)
    if container.decodeNil() {
      self = .null
    } else if let integer = try? container.decode(Int.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      if let large = Self.exactInteger(number, decimal: { try? container.decode(Decimal.self) }) {
        self = large
      } else {
        self = .number(number)
      }
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Encodes the value; a ``largeInteger(_:)`` as a `Decimal`, which `JSONEncoder` writes as
  /// its digits (exactly up to 38 significant digits).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case let .bool(bool): try container.encode(bool)
    case let .integer(integer): try container.encode(integer)
    case let .largeInteger(digits):
      guard let decimal = Decimal(string: digits) else {
        throw EncodingError.invalidValue(
          digits, .init(codingPath: encoder.codingPath, debugDescription: "\(digits) is not an integer")
        )
      }
      try container.encode(decimal)
    case let .number(number): try container.encode(number)
    case let .string(string): try container.encode(string)
    case let .array(array): try container.encode(array)
    case let .object(object): try container.encode(object)
    }
  }

  /// The ``largeInteger(_:)`` for a number that is a whole number outside `Int`'s range but
  /// within `Decimal`'s exact digits, given the number read again as a `Decimal`; `nil` for any
  /// other number.
  static func exactInteger(_ number: Double, decimal: () -> Decimal?) -> JSONValue? {
    // Below 2^63 a whole number would have been an `Int`; from 1e38 a Decimal rounds.
    guard number.rounded() == number, number.magnitude >= 0x1p63, number.magnitude < 1e38,
      let decimal = decimal(), decimal.isFinite, decimal == decimal.wholeNumber()
    else { return nil }
    return .largeInteger(decimal.description)
  }

  /// Parses a command-line argument.
  ///
  /// - Throws: ``CommandError`` saying that the text is not JSON, and where.
  public init(parsing text: String) throws {
    do {
      self = try JSONValue(json: Data(text.utf8))
    } catch let error as JSONParsingError {
      throw CommandError("'\(text)' is not valid JSON: \(error.problem) at byte \(error.offset)")
    } catch {
      throw CommandError("'\(text)' is not valid JSON")
    }
  }
}

extension Decimal {
  /// The whole number nearest to this one.
  fileprivate func wholeNumber() -> Decimal {
    var value = self
    var result = Decimal()
    NSDecimalRound(&result, &value, 0, .plain)
    return result
  }
}
