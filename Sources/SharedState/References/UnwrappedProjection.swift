/// A view of an optional shared value's wrapped value.
///
/// When the optional becomes `nil` (an element removed from a collection, say) the view keeps
/// the last value it saw, so that code holding it never finds a value missing. From then on it
/// is a value of its own: writes through it change that value (and the base stays as it is),
/// until the base holds a value again.
struct UnwrappedProjection<Base: ValueProjection<Wrapped?>, Wrapped>: ValueProjection {
  let base: Base
  private let lastValue: LastValue<Wrapped>

  init(base: Base, lastValue: Wrapped) {
    self.base = base
    self.lastValue = LastValue(lastValue)
  }

  var value: Wrapped {
    guard let current = base.value else { return lastValue.current! }
    lastValue.set(current)
    return current
  }

  var root: any RootReference { base.root }

  func observe(_ onChange: @escaping @Sendable (Wrapped) -> Void) -> SharedSubscription {
    base.observe { value in
      guard let value else { return }
      onChange(value)
    }
  }

  func value(inRoot rootValue: Any) -> Wrapped {
    base.value(inRoot: rootValue) ?? lastValue.current!
  }
}

extension UnwrappedProjection: MutableValueProjection where Base: MutableValueProjection {
  func withLock<R>(_ body: (inout Wrapped) throws -> R) rethrows -> R {
    try base.withLock { optional in
      guard var wrapped = optional else {
        // The value is gone from the base: the view carries on with its own copy, which the
        // base does not see.
        var detached = lastValue.current!
        let result = try body(&detached)
        lastValue.set(detached)
        return result
      }
      let result = try body(&wrapped)
      optional = wrapped
      lastValue.set(wrapped)
      return result
    }
  }

  func update<R>(inRoot rootValue: inout Any, _ body: (inout Wrapped) throws -> R) rethrows -> R {
    try base.update(inRoot: &rootValue) { optional in
      // Gone from the snapshot: the change applies to a copy, as `withLock` does to the state.
      var wrapped = optional ?? lastValue.current!
      let result = try body(&wrapped)
      if optional != nil { optional = wrapped }
      return result
    }
  }
}
