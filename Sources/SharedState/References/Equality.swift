/// Compares two values of one type when that type is `Equatable`, whatever it is statically.
///
/// - Returns: Whether they are equal, or `nil` when the type is not `Equatable`.
func isEqual<T>(_ lhs: T, _ rhs: T) -> Bool? {
  guard let equatableType = T.self as? any Equatable.Type else { return nil }
  return equatableType.areEqual(lhs, rhs)
}

extension Equatable {
  fileprivate static func areEqual(_ lhs: Any, _ rhs: Any) -> Bool {
    guard let lhs = lhs as? Self, let rhs = rhs as? Self else { return false }
    return lhs == rhs
  }
}
