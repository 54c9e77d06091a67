import Foundation

/// Any JSON value, so that the tool can store and print whatever a file holds.
enum JSONValue: Codable, Equatable, Sendable {
  case null
  case bool(Bool)
  case integer(Int)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    // Each wrong guess costs a thrown error: integers, the tool's most common values, first.
    // (JSON's numbers never decode as booleans, nor booleans as numbers.)
    if container.decodeNil() {
      self = .null
    } else if let integer = try? container.decode(Int.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
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

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case let .bool(bool): try container.encode(bool)
    case let .integer(integer): try container.encode(integer)
    case let .number(number): try container.encode(number)
    case let .string(string): try container.encode(string)
    case let .array(array): try container.encode(array)
    case let .object(object): try container.encode(object)
    }
  }

  /// Parses a command-line argument.
  init(parsing text: String) throws {
    do {
      self = try JSONValue(json: Data(text.utf8))
    } catch {
      throw DemoError("'\(text)' is not valid JSON")
    }
  }
}
