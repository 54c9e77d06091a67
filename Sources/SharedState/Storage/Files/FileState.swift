import Foundation

/// What a path holds: nothing, or a file's bytes.
enum FileState: Equatable, Sendable {
  /// No file exists at the path.
  case missing
  /// The file's complete contents.
  case contents(Data)
}

extension FileState {
  /// Whether a reader that takes at most `limit` bytes may take this.
  func fits(_ limit: Int) -> Bool {
    guard case let .contents(data) = self else { return true }
    return data.count <= limit
  }
}
