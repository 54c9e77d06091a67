import Foundation
import IssueReporting

/// `UserDefaults`' names for reading a suite, for code written against `UserDefaults`: each
/// returns what `UserDefaults` returns when nothing usable is stored (`false`, `0`, `nil`),
/// and never throws. Use ``value(forKey:as:)-(_,Value.Type)`` to tell "nothing stored" from
/// "stored something else".
///
/// Writing keeps this library's throwing ``set(_:forKey:)-(Value,_)``: a write that fails here
/// is an error the caller should see, where `UserDefaults.set` says nothing.
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

  /// The bytes stored under `key` (Base64 in the file), or `nil`.
  public func data(forKey key: String) -> Data? {
    try? value(forKey: key, as: Data.self)
  }

  /// Removes the value stored under `key`, as `UserDefaults.removeObject(forKey:)`: a failure
  /// is reported through IssueReporting rather than thrown. See ``removeValue(forKey:)``.
  public func removeObject(forKey key: String) {
    do {
      try removeValue(forKey: key)
    } catch {
      reportIssue(error)
    }
  }
}
