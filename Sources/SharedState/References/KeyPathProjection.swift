/// A read-only view of a part of a shared value, reached through a key path.
struct KeyPathProjection<Base: ValueProjection, Member>: ValueProjection {
  let base: Base
  let keyPath: KeyPath<Base.Value, Member> & Sendable

  var value: Member { base.value[keyPath: keyPath] }
  var root: any RootReference { base.root }

  func observe(_ onChange: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [keyPath] value in onChange(value[keyPath: keyPath]) }
  }

  func value(inRoot rootValue: Any) -> Member {
    base.value(inRoot: rootValue)[keyPath: keyPath]
  }
}

/// A writable view of a part of a shared value, reached through a writable key path.
struct WritableKeyPathProjection<Base: MutableValueProjection, Member>: MutableValueProjection {
  let base: Base
  let keyPath: WritableKeyPath<Base.Value, Member> & Sendable

  var value: Member { base.value[keyPath: keyPath] }
  var root: any RootReference { base.root }

  func observe(_ onChange: @escaping @Sendable (Member) -> Void) -> SharedSubscription {
    base.observe { [keyPath] value in onChange(value[keyPath: keyPath]) }
  }

  func withLock<R>(_ body: (inout Member) throws -> R) rethrows -> R {
    try base.withLock { value in try body(&value[keyPath: keyPath]) }
  }

  func value(inRoot rootValue: Any) -> Member {
    base.value(inRoot: rootValue)[keyPath: keyPath]
  }

  func update<R>(inRoot rootValue: inout Any, _ body: (inout Member) throws -> R) rethrows -> R {
    try base.update(inRoot: &rootValue) { value in try body(&value[keyPath: keyPath]) }
  }
}
