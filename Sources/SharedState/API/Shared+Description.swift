import CustomDump

/// What a `Shared` or `SharedReader` says about itself, in swift-sharing's words:
/// `Shared<Int>(value: 0)` for state without a key, `Shared<Int>(.inMemory("count"))` for a key.
func sharedDescription<Value>(
  _ wrapperName: String,
  of projection: any ValueProjection<Value>
) -> String {
  let contents = projection.root.keyDescription ?? "value: \(String(reflecting: projection.value))"
  return "\(wrapperName)<\(Value.self)>(\(contents))"
}

extension Shared: CustomStringConvertible {
  /// `Shared<Int>(value: 0)`, or `Shared<Int>(.inMemory("count"))` for state with a key.
  public var description: String { sharedDescription("Shared", of: projection) }
}

extension SharedReader: CustomStringConvertible {
  /// `SharedReader<Int>(value: 0)`, or `SharedReader<Int>(.inMemory("count"))` for state with a
  /// key.
  public var description: String { sharedDescription("SharedReader", of: projection) }
}

// A dump shows the value, not the machinery (locks, registrars) behind it. Two `Shared`s of one
// state are dumped as one object, so that a dump shows which values are shared.

extension Shared: CustomDumpRepresentable {
  /// The value.
  public var customDumpValue: Any { wrappedValue }
}

extension Shared: _CustomDiffObject {
  /// The value, before and after: a `Shared` has no history of its own.
  public var _customDiffValues: (Any, Any) { (wrappedValue, wrappedValue) }
  /// The state's identity: every `Shared` of one state is the same object in a dump.
  public var _objectIdentifier: ObjectIdentifier { ObjectIdentifier(projection.root) }
}

extension SharedReader: CustomDumpRepresentable {
  /// The value.
  public var customDumpValue: Any { wrappedValue }
}

extension SharedReader: _CustomDiffObject {
  /// The value, before and after: a reader has no history of its own.
  public var _customDiffValues: (Any, Any) { (wrappedValue, wrappedValue) }
  /// The state's identity: every reader of one state is the same object in a dump.
  public var _objectIdentifier: ObjectIdentifier { ObjectIdentifier(projection.root) }
}
