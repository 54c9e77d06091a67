/// The `==` of a type, when it is `Equatable`, found once so that hot paths compare without a
/// dynamic cast each time.
func equality<T>(of _: T.Type) -> ((T, T) -> Bool)? {
  guard let equatableType = T.self as? any Equatable.Type else { return nil }
  return equatableType.equalityFunction(for: T.self)
}

extension Equatable {
  /// `==` as a function of `T`, which is `Self`. The function itself is cast, once: a closure
  /// that cast its two operands instead made two dynamic casts per comparison (visible in a
  /// watching process's profile). `nil` only if `T` were not `Self`.
  fileprivate static func equalityFunction<T>(for _: T.Type) -> ((T, T) -> Bool)? {
    let compare: (Self, Self) -> Bool = (==)
    return compare as? (T, T) -> Bool
  }
}
