import Foundation
import Synchronization

/// The JSON formats made so far, by value type (see ``AppStorageFormat/json``).
private let jsonFormats = Mutex<[ObjectIdentifier: any Sendable]>([:])

/// How app storage turns one type of value into the bytes of its file and back: JSON that a
/// person (or `jq`, or `echo 42 >`) can read and write.
///
/// - Numbers, booleans, strings and arrays are their JSON: `42`, `true`, `"text"`, `["a","b"]`.
/// - `Date`: seconds since 1970 as a JSON number (`1700000000.25`); reading also accepts an
///   ISO 8601 string (`"2024-01-31T12:00:00Z"`).
/// - `URL`: its absolute string; `Data`: Base64 in a string.
/// - Other `Codable` values: their JSON. Reading also accepts a `Data` value that holds the
///   value's JSON as `JSONEncoder()` writes it, as code written for `UserDefaults` stores one
///   (`set(try JSONEncoder().encode(item), forKey:)`) and swift-sharing's app storage does.
/// - `RawRepresentable` values: their raw value.
/// - Optionals: `nil` is no file at all.
///
/// Each file ends with a newline, as shell tools expect.
struct AppStorageFormat<Value>: Sendable {
  let decode: @Sendable (FileContents) throws -> Value
  /// `nil` means "no file".
  let encode: @Sendable (Value) throws -> FileContents?
}

extension AppStorageFormat where Value: Codable & Sendable {
  /// JSON through `Codable`; an optional that is `nil` is no file.
  static var json: Self {
    // Made once per type: closures made in a generic context are two objects for each key, and
    // a program may open thousands.
    let type = ObjectIdentifier(Value.self)
    return jsonFormats.withLock { formats in
      // Filed under `Value`'s identity: the entry is of this very type.
      if let known = formats[type] { return known as! Self }
      // Asked once per format rather than cast on every write.
      let isOptional = Value.self is any AppStorageOptional.Type
      // An `Int`, a `Bool`, a `Double` or a `String` without the coders (see `PlainJSON`).
      let kind = PlainJSON.kind(of: Value.self)
      let made = Self(
        decode: { contents in
          if let kind, let parsed = PlainJSON.parse(contents, as: kind) { return parsed.value(as: Value.self) }
          let data = contents.data
          do {
            return try AppStorageJSON.decode(Value.self, from: data)
          } catch {
            guard let value = AppStorageJSON.decodeFromBlob(Value.self, from: data) else { throw error }
            return value
          }
        },
        encode: { value in
          // The encoder writes slashes as they are (`.withoutEscapingSlashes`).
          if let kind, let text = PlainJSON.text(of: value, as: kind, escapingSlashes: false, endingLine: true) {
            return text
          }
          if isOptional, let optional = value as? any AppStorageOptional, optional.isNone { return nil }
          return FileContents(try AppStorageJSON.encode(value))
        }
      )
      formats[type] = made
      return made
    }
  }
}

extension AppStorageFormat where Value: RawRepresentable & Sendable, Value.RawValue: Codable & Sendable {
  /// The raw value, as JSON.
  static var rawValue: Self {
    Self(
      decode: { contents in
        let rawValue = try AppStorageJSON.decode(Value.RawValue.self, from: contents.data)
        guard let value = Value(rawValue: rawValue) else {
          throw DecodingError.dataCorrupted(
            DecodingError.Context(
              codingPath: [],
              debugDescription: "\(rawValue) is not a raw value of \(Value.self)"
            )
          )
        }
        return value
      },
      encode: { FileContents(try AppStorageJSON.encode($0.rawValue)) }
    )
  }
}

extension AppStorageFormat {
  /// The wrapped format for values, and no file for `nil`.
  static func optional<Wrapped>(_ wrapped: AppStorageFormat<Wrapped>) -> Self where Value == Wrapped? {
    Self(
      decode: { try wrapped.decode($0) },
      encode: { value in try value.flatMap(wrapped.encode) }
    )
  }
}

/// The JSON coding app storage uses for every value.
private enum AppStorageJSON {
  // One of each for the process: both are Sendable (their options are set here, once).
  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .secondsSince1970
    return encoder
  }()

  private static let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      if let seconds = try? container.decode(Double.self) {
        return Date(timeIntervalSince1970: seconds)
      }
      let text = try container.decode(String.self)
      for options: ISO8601DateFormatter.Options in [
        [.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime],
      ] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = options
        if let date = formatter.date(from: text) { return date }
      }
      throw DecodingError.dataCorruptedError(
        in: container,
        debugDescription: "\(String(reflecting: text)) is neither seconds since 1970 nor an ISO 8601 date"
      )
    }
    return decoder
  }()

  static func encode<Value: Encodable>(_ value: Value) throws -> Data {
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    return data
  }

  static func decode<Value: Decodable>(_: Value.Type, from data: Data) throws -> Value {
    try decoder.decode(Value.self, from: data)
  }

  /// The decoder of the JSON that code outside this library puts in a `Data` value: Foundation's
  /// defaults, as `JSONEncoder()` encodes (a `Date` is seconds since 2001 there).
  private static let blobDecoder = JSONDecoder()

  /// The value whose JSON a stored `Data` value holds (a file that is a Base64 string), or `nil`
  /// when the file is no such thing.
  static func decodeFromBlob<Value: Decodable>(_: Value.Type, from data: Data) -> Value? {
    // Only a JSON string can hold Base64; anything else is not tried.
    guard data.first == UInt8(ascii: "\""), let blob = try? decoder.decode(Data.self, from: data) else { return nil }
    return try? blobDecoder.decode(Value.self, from: blob)
  }
}

/// Lets the JSON format tell a `nil` optional, whatever it wraps, from a value.
private protocol AppStorageOptional {
  var isNone: Bool { get }
}

extension Optional: AppStorageOptional {
  var isNone: Bool { self == nil }
}
