/// What a ``SharedChangeTracker`` needs of a reference: its value untyped, and views of a
/// snapshot of it in place of the state.
extension SharedReference {
  var anyValue: Any { value }

  var trackedDescription: String { sharedDescription("Shared", of: self) }

  func value(inRoot rootValue: Any) -> Value {
    rootValue as! Value
  }

  func update<R>(inRoot rootValue: inout Any, _ body: (inout Value) throws -> R) rethrows -> R {
    var value = rootValue as! Value
    let result = try body(&value)
    rootValue = value
    return result
  }
}
