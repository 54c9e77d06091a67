import Foundation

// Five overloads cover every supported type without ambiguity: `Codable` values (which include
// `Bool`, `Int`, `Double`, `String`, `[String]`, `URL`, `Data`, `Date` and optionals of them),
// `RawRepresentable` values and optionals of them, and, more specific than both, values that
// are `RawRepresentable` and `Codable` at once (most enums with raw values).

extension SharedReaderKey {
  /// A key for a `Codable` value (a `Bool`, `Int`, `Double`, `String`, `[String]`, `URL`,
  /// `Data`, `Date`, any other `Codable` type, or an optional of one) stored as JSON in an app
  /// storage suite: see ``AppStorageKey``.
  ///
  /// An optional that is set to `nil` removes the key's file.
  ///
  /// - Parameters:
  ///   - key: The key's name: any string (see ``AppStorageSuite/fileName(forKey:)``).
  ///   - store: The suite; `nil` for the `defaultAppStorage` dependency's.
  public static func appStorage<Value: Codable & Sendable>(
    _ key: String,
    store: AppStorageSuite? = nil
  ) -> Self where Self == AppStorageKey<Value> {
    AppStorageKey(key, suite: store, format: .json)
  }

  /// A key for a `RawRepresentable` value, stored as its raw value in an app storage suite: see
  /// ``AppStorageKey``.
  ///
  /// - Parameters:
  ///   - key: The key's name: any string (see ``AppStorageSuite/fileName(forKey:)``).
  ///   - store: The suite; `nil` for the `defaultAppStorage` dependency's.
  public static func appStorage<Value: RawRepresentable & Sendable>(
    _ key: String,
    store: AppStorageSuite? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: store, format: .rawValue)
  }

  /// A key for a value that is both `RawRepresentable` and `Codable`, stored as its raw value
  /// in an app storage suite: see ``AppStorageKey``.
  ///
  /// - Parameters:
  ///   - key: The key's name: any string (see ``AppStorageSuite/fileName(forKey:)``).
  ///   - store: The suite; `nil` for the `defaultAppStorage` dependency's.
  public static func appStorage<Value: RawRepresentable & Codable & Sendable>(
    _ key: String,
    store: AppStorageSuite? = nil
  ) -> Self where Self == AppStorageKey<Value>, Value.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: store, format: .rawValue)
  }

  /// A key for an optional `RawRepresentable` value, stored as its raw value in an app storage
  /// suite; `nil` removes the key's file: see ``AppStorageKey``.
  ///
  /// - Parameters:
  ///   - key: The key's name: any string (see ``AppStorageSuite/fileName(forKey:)``).
  ///   - store: The suite; `nil` for the `defaultAppStorage` dependency's.
  public static func appStorage<Wrapped: RawRepresentable & Sendable>(
    _ key: String,
    store: AppStorageSuite? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: store, format: .optional(.rawValue))
  }

  /// A key for an optional value that is both `RawRepresentable` and `Codable`, stored as its
  /// raw value in an app storage suite; `nil` removes the key's file: see ``AppStorageKey``.
  ///
  /// - Parameters:
  ///   - key: The key's name: any string (see ``AppStorageSuite/fileName(forKey:)``).
  ///   - store: The suite; `nil` for the `defaultAppStorage` dependency's.
  public static func appStorage<Wrapped: RawRepresentable & Codable & Sendable>(
    _ key: String,
    store: AppStorageSuite? = nil
  ) -> Self where Self == AppStorageKey<Wrapped?>, Wrapped.RawValue: Codable & Sendable {
    AppStorageKey(key, suite: store, format: .optional(.rawValue))
  }
}
