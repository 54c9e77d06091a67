import Foundation

extension DecodingError {
  /// The error a key's state holds for a file whose bytes did not decode: the decoder's own
  /// error, so that `loadError is DecodingError` answers as it does with swift-sharing, with the
  /// file's path at the front of its description, so that the message still says which file to
  /// fix.
  ///
  /// - Parameters:
  ///   - error: What the decoder (or a `decode:` closure of the program's) threw.
  ///   - path: The file's path.
  /// - Returns: A `DecodingError` of the same case and coding path whose debug description
  ///   begins with `path` (its underlying error kept), or `error` itself when it is not a
  ///   `DecodingError`: a program's own error is its to interpret.
  static func naming(_ path: String, in error: any Error) -> any Error {
    guard let error = error as? DecodingError else { return error }
    func named(_ context: Context) -> Context {
      Context(
        codingPath: context.codingPath,
        debugDescription: "\(path): \(context.debugDescription)",
        underlyingError: context.underlyingError
      )
    }
    switch error {
    case let .typeMismatch(type, context): return DecodingError.typeMismatch(type, named(context))
    case let .valueNotFound(type, context): return DecodingError.valueNotFound(type, named(context))
    case let .keyNotFound(key, context): return DecodingError.keyNotFound(key, named(context))
    case let .dataCorrupted(context): return DecodingError.dataCorrupted(named(context))
    @unknown default: return error
    }
  }
}
