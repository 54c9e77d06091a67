import Foundation
import IssueReporting

/// `UserDefaults`' names on a suite, for code written against `UserDefaults`: none of them
/// throws. Readers return what `UserDefaults` returns when nothing usable is stored (`false`,
/// `0`, `nil`); writers report a failure through IssueReporting (a test failure under test, a
/// runtime warning in a program), where `UserDefaults` says nothing at all.
///
/// Use this library's own names to see failures as errors: `value(forKey:as:)`
/// tells "nothing stored" from "stored something else", `write(_:forKey:)` and
/// ``removeValue(forKey:)`` throw.
extension AppStorageSuite {
  /// The Boolean stored under `key`; a number counts as `true` when it is not zero, a string
  /// when it is `"true"`, `"YES"` or `"1"`. `false` when nothing usable is stored.
  public func bool(forKey key: String) -> Bool {
    if let value = try? value(forKey: key, as: Bool.self) { return value }
    if let value = try? value(forKey: key, as: Double.self) { return value != 0 }
    if let value = try? value(forKey: key, as: String.self) { return ["true", "YES", "1"].contains(value) }
    return false
  }

  /// The integer stored under `key`; a floating-point number is truncated, a Boolean is `0` or
  /// `1`, a string is parsed. `0` when nothing usable is stored.
  public func integer(forKey key: String) -> Int {
    if let value = try? value(forKey: key, as: Int.self) { return value }
    if let value = try? value(forKey: key, as: Double.self), let exact = Int(exactly: value.rounded(.towardZero)) {
      return exact
    }
    if let value = try? value(forKey: key, as: Bool.self) { return value ? 1 : 0 }
    if let value = try? value(forKey: key, as: String.self) { return Int(value) ?? 0 }
    return 0
  }

  /// The number stored under `key`; a Boolean is `0` or `1`, a string is parsed. `0` when
  /// nothing usable is stored.
  public func double(forKey key: String) -> Double {
    if let value = try? value(forKey: key, as: Double.self) { return value }
    if let value = try? value(forKey: key, as: Bool.self) { return value ? 1 : 0 }
    if let value = try? value(forKey: key, as: String.self) { return Double(value) ?? 0 }
    return 0
  }

  /// The number stored under `key`, as a `Float`: see ``double(forKey:)``.
  public func float(forKey key: String) -> Float {
    Float(double(forKey: key))
  }

  /// The string stored under `key`; a number is written out. `nil` when nothing usable is stored.
  public func string(forKey key: String) -> String? {
    if let value = try? value(forKey: key, as: String.self) { return value }
    if let value = try? value(forKey: key, as: Int.self) { return String(value) }
    if let value = try? value(forKey: key, as: Double.self) { return String(value) }
    return nil
  }

  /// The array of strings stored under `key`, or `nil`.
  public func stringArray(forKey key: String) -> [String]? {
    try? value(forKey: key, as: [String].self)
  }

  /// The URL stored under `key`; a path string is a file URL. `nil` when nothing usable is stored.
  public func url(forKey key: String) -> URL? {
    if let value = try? value(forKey: key, as: URL.self) { return value }
    if let path = try? value(forKey: key, as: String.self), path.hasPrefix("/") {
      return URL(fileURLWithPath: path)
    }
    return nil
  }

  /// The bytes stored under `key`: a `Data` value (Base64 in the file), or the JSON text of a
  /// file that holds a JSON object or array, which is how a `Codable` value is stored. `nil`
  /// when nothing usable is stored.
  ///
  /// So code written for `UserDefaults`, where a `Codable` value is kept as its JSON in a `Data`
  /// value, reads it as it did: `JSONDecoder().decode(Item.self, from: data)`. (A `Date` inside
  /// is seconds since 1970 here: give that decoder `.secondsSince1970`.)
  public func data(forKey key: String) -> Data? {
    guard let contents = storedContents(forKey: key) else { return nil }
    if let bytes = try? AppStorageFormat<Data>.json.decode(contents) { return bytes }
    let data = contents.data
    let json = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
    return json is [Any] || json is [String: Any] ? data : nil
  }

  /// What is stored under `key`, as the JSON value it is (a number, `Bool`, `String`, array or
  /// dictionary), or `nil` when nothing is stored or the file is not JSON.
  ///
  /// JSON does not say which Swift type a value had: a `Date` comes back as its number of
  /// seconds, a `URL` as its string. Read with a type (`value(forKey:as:)`)
  /// to get the value back as it was stored.
  public func object(forKey key: String) -> Any? {
    guard let contents = storedContents(forKey: key) else { return nil }
    return try? JSONSerialization.jsonObject(with: contents.data, options: .fragmentsAllowed)
  }

  /// The bytes of `key`'s file, or `nil` when there is none or it cannot be read.
  private func storedContents(forKey key: String) -> FileContents? {
    guard
      let file = try? storedFile(forKey: key),
      case let .contents(contents)? = try? file.read()
    else { return nil }
    return contents
  }

  /// What is stored under `key`, untyped: the same as ``object(forKey:)``.
  public func value(forKey key: String) -> Any? {
    object(forKey: key)
  }

  /// Stores `value` under `key`, as `UserDefaults.set(_:forKey:)`; a `nil` optional removes it.
  ///
  /// A failure (a key that cannot be a file name, a file that cannot be written) is reported
  /// through IssueReporting rather than thrown; `write(_:forKey:)` throws it.
  ///
  /// - Parameters:
  ///   - value: The value to store.
  ///   - key: The key's name.
  ///   - fileID: Where a failure is reported: the caller's file, as `#fileID`.
  ///   - filePath: The caller's file, as `#filePath`.
  ///   - line: The caller's line.
  ///   - column: The caller's column.
  public func set<Value: Codable & Sendable>(
    _ value: Value,
    forKey key: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    reportingFailure(fileID, filePath, line, column) { try write(value, forKey: key) }
  }

  /// Stores a `RawRepresentable` value under `key`, as its raw value; see
  /// `set(_:forKey:)`.
  public func set<Value: RawRepresentable & Sendable>(
    _ value: Value,
    forKey key: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where Value.RawValue: Codable & Sendable {
    reportingFailure(fileID, filePath, line, column) { try write(value, forKey: key) }
  }

  /// Stores a value that is `RawRepresentable` and `Codable` under `key`, as its raw value; see
  /// `set(_:forKey:)`.
  public func set<Value: RawRepresentable & Codable & Sendable>(
    _ value: Value,
    forKey key: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) where Value.RawValue: Codable & Sendable {
    reportingFailure(fileID, filePath, line, column) { try write(value, forKey: key) }
  }

  /// Removes the value stored under `key`, as `UserDefaults.removeObject(forKey:)`: a failure
  /// is reported through IssueReporting rather than thrown. See ``removeValue(forKey:)``.
  public func removeObject(
    forKey key: String,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
  ) {
    reportingFailure(fileID, filePath, line, column) { try removeValue(forKey: key) }
  }

  /// Runs `body` and reports what it throws at the caller's location.
  private func reportingFailure(
    _ fileID: StaticString,
    _ filePath: StaticString,
    _ line: UInt,
    _ column: UInt,
    _ body: () throws -> Void
  ) {
    do {
      try body()
    } catch {
      reportIssue(error, fileID: fileID, filePath: filePath, line: line, column: column)
    }
  }
}
