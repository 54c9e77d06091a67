/// A read-only view of a value computed from a shared value by a closure: `$count.read { $0 > 0 }`.
struct MapProjection<Base: ValueProjection, Member>: ValueProjection {
  let base: Base
  let transform: @Sendable (Base.Value) -> Member

  var value: Member { transform(base.value) }
  var root: any RootReference { base.root }

  func observe(_ onChange: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [transform] value in onChange(transform(value)) }
  }

  func value(inRoot rootValue: Any) -> Member {
    transform(base.value(inRoot: rootValue))
  }
}

extension ValueProjection {
  /// A view of a value computed from this one.
  func mapped<Member>(_ transform: @escaping @Sendable (Value) -> Member) -> any ValueProjection<Member> {
    MapProjection(base: self, transform: transform)
  }
}
