/// Why a key is asked to load its value.
public enum LoadContext<Value> {
  /// A reference is being created for the key, with this default value from the use site.
  case initialValue(Value)

  /// The program asked for a fresh value, through ``Shared/load()`` or ``Shared/init(require:)``.
  case userInitiated

  /// The default value from the use site, if there is one.
  public var initialValue: Value? {
    guard case let .initialValue(value) = self else { return nil }
    return value
  }
}

extension LoadContext: Sendable where Value: Sendable {}
