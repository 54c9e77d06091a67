/// The error ``Shared/init(require:)`` and ``SharedReader/init(require:)`` throw when their key
/// has no value stored.
public struct SharedValueNotFound: Error, Equatable, CustomStringConvertible {
  /// A description of the key that had nothing stored.
  public let keyDescription: String

  /// Creates the error for a key.
  public init(keyDescription: String) {
    self.keyDescription = keyDescription
  }

  /// A sentence that names the key.
  public var description: String {
    "No value is stored for \(keyDescription)."
  }
}
