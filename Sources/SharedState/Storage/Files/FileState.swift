import Foundation

/// What a path holds: nothing, or a file's bytes.
enum FileState: Equatable, Sendable {
  /// No file exists at the path.
  case missing
  /// The file's complete contents.
  case contents(Data)
}
