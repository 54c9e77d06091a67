import Foundation
import IssueReporting

extension AppStorageSuite {
  /// The suite that stands for a `UserDefaults` store, for code written against swift-sharing's
  /// `.appStorage("key", store: UserDefaults(suiteName: "name")!)`.
  ///
  /// - `UserDefaults.standard` (no suite name): `nil`, the `defaultAppStorage` suite.
  /// - A suite name that is an absolute path: the suite in that directory.
  /// - Any other suite name: ``init(named:filePermissions:directoryPermissions:durability:maximumReadSize:)``,
  ///   `$XDG_CONFIG_HOME/NAME/`.
  ///
  /// The values live in the suite's directory, not in the `UserDefaults` store: the store is
  /// only asked for its name. Foundation on Linux does not publish that name, so it is read
  /// by reflection; when it cannot be read (or is not a valid suite name) this is reported
  /// through IssueReporting and the default suite is used.
  static func matching(_ store: UserDefaults) -> AppStorageSuite? {
    let suiteName = Mirror(reflecting: store).children.first { $0.label == "suite" }
    guard let suiteName else {
      reportIssue(
        "The suite name of \(store) could not be read; app storage uses the default suite."
      )
      return nil
    }
    guard let name = suiteName.value as? String? else { return nil }
    guard let name else { return nil }
    if name.hasPrefix("/") {
      return AppStorageSuite(directory: URL(fileURLWithPath: name, isDirectory: true))
    }
    do {
      return try AppStorageSuite(named: name)
    } catch {
      reportIssue("\(error). App storage uses the default suite instead.")
      return nil
    }
  }
}

// The `UserDefaults` spellings of the `.appStorage` overloads in SharedReaderKey+AppStorage.swift.

extension SharedReaderKey {
  /// A key for a `Codable` value in the app storage suite that stands for a `UserDefaults`
  /// store: see ``AppStorageSuite`` and `appStorage(_:store:)`.
  ///
  /// - Parameters:
  ///   - key: The key's name.
  ///   - store: `UserDefaults.standard` for the default suite, or `UserDefaults(suiteName:)`
  ///     for the suite of that name (a directory, for a name that is an absolute path).
  public static func appStorage<Value: Codable & Sendable>(
    _ key: String,
    store: UserDefaults
  ) -> Self where Self == AppStorageKey<Value> {
    AppStorageKey(key, suite: .matching(store), format: .json)
  }

  /// A key for a `RawRepresentable` value in the suite that stands for a `UserDefaults` store.
  ///
  /// - Parameters:
  ///   - key: The key's name.
  ///   - store: The `UserDefaults` store whose suite name names the suite.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String,
    store: UserDefaults
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: .matching(store), format: .rawValue)
  }

  /// A key for a `RawRepresentable` and `Codable` value in the suite that stands for a
  /// `UserDefaults` store.
  ///
  /// - Parameters:
  ///   - key: The key's name.
  ///   - store: The `UserDefaults` store whose suite name names the suite.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String,
    store: UserDefaults
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: .matching(store), format: .rawValue)
  }

  /// A key for an optional `RawRepresentable` value in the suite that stands for a
  /// `UserDefaults` store; `nil` removes the key's file.
  ///
  /// - Parameters:
  ///   - key: The key's name.
  ///   - store: The `UserDefaults` store whose suite name names the suite.
  public static func appStorage<Wrapped: RawRepresentable & Sendable>(
    _ key: String,
    store: UserDefaults
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: .matching(store), format: .optional(.rawValue))
  }

  /// A key for an optional `RawRepresentable` and `Codable` value in the suite that stands for
  /// a `UserDefaults` store; `nil` removes the key's file.
  ///
  /// - Parameters:
  ///   - key: The key's name.
  ///   - store: The `UserDefaults` store whose suite name names the suite.
  public static func appStorage<Wrapped: RawRepresentable & Codable & Sendable>(
    _ key: String,
    store: UserDefaults
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: .matching(store), format: .optional(.rawValue))
  }
}
