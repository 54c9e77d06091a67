/// The earlier name of ``SharedKey``.
@available(*, deprecated, renamed: "SharedKey")
public typealias PersistenceKey = SharedKey

/// The earlier name of ``SharedReaderKey``.
@available(*, deprecated, renamed: "SharedReaderKey")
public typealias PersistenceReaderKey = SharedReaderKey

/// The earlier name of ``SharedKeyDefault``.
@available(*, deprecated, renamed: "SharedKeyDefault")
public typealias PersistenceKeyDefault<Base: SharedReaderKey> = SharedKeyDefault<Base>

extension SharedKeyDefault {
  /// Pairs a key with a default value, as the Composable Architecture 1.10 wrote it:
  /// `PersistenceKeyDefault(.appStorage("isOn"), false)`.
  ///
  /// - Parameters:
  ///   - key: The key that loads and saves the value.
  ///   - value: The value to use when nothing is stored; evaluated only when needed.
  @available(*, deprecated, message: "Use 'Key.Default[key, default: value]' (see 'SharedKeyDefault').")
  public init(_ key: Base, _ value: @autoclosure @escaping @Sendable () -> Base.Value) {
    self = Self[key, default: value()]
  }
}
