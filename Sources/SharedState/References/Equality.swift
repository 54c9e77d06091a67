/// The `==` of a type, when it is `Equatable`, found once so that hot paths compare without a
/// dynamic cast each time.
func equality<T>(of _: T.Type) -> ((T, T) -> Bool)? {
  guard let equatableType = T.self as? any Equatable.Type else { return nil }
  return equatableType.equalityFunction(for: T.self)
}

extension Equatable {
  fileprivate static func equalityFunction<T>(for _: T.Type) -> (T, T) -> Bool {
    { lhs, rhs in (lhs as! Self) == (rhs as! Self) }
  }
}
