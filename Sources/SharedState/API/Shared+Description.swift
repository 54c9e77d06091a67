import CustomDump

/// What a `Shared` or `SharedReader` says about itself, in swift-sharing's words:
/// `Shared<Int>(value: 0)` for state without a key, `Shared<Int>(.inMemory("count"))` for a key.
func sharedDescription<Value>(
  _ wrapperName: String,
  of projection: any ValueProjection<Value>
) -> String {
  let contents = projection.root.keyDescription ?? "value: \(String(reflecting: projection.value))"
  return "\(wrapperName)<\(readableTypeName(Value.self))>(\(contents))"
}

/// A type's name as Swift code writes it: `Int?` rather than `Optional<Int>`.
func readableTypeName(_ type: Any.Type) -> String {
  var name = String(describing: type)
  while let start = name.range(of: "Optional<") {
    // The `>` that closes this `Optional<`.
    var depth = 0
    var end = start.upperBound
    while end < name.endIndex {
      if name[end] == "<" { depth += 1 }
      // `->` of a function type closes nothing.
      if name[end] == ">", name[name.index(before: end)] != "-" {
        if depth == 0 { break }
        depth -= 1
      }
      end = name.index(after: end)
    }
    guard end < name.endIndex else { break }
    let wrapped = name[start.upperBound..<end]
    name.replaceSubrange(start.lowerBound...end, with: "\(wrapped)?")
  }
  return name
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
  /// The value, before and after: a `Shared` has no history of its own, except
  /// while a ``SharedChangeTracker`` asserts, the snapshot it took and the value now.
  public var _customDiffValues: (Any, Any) { (wrappedValue, projection.value) }
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
