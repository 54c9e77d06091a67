import Foundation

/// What a path holds: nothing, or a file's bytes; or, in what a handle keeps of a large file,
/// only their digest.
///
/// Reads and writes always carry the bytes (`.contents`). A ``ContentDigest`` stands in for
/// them only in what a handle remembers (see ``kept``), which is used to compare, never to decode
/// or to write: a program that holds a value of 24 MB holds it once, decoded, rather than once
/// more as the file's bytes.
enum FileState: Sendable {
  /// No file exists at the path.
  case missing
  /// The file's complete contents.
  case contents(Data)
  /// The digest of the file's contents, in place of contents longer than
  /// ``largestKeptContents``.
  case digest(ContentDigest)
}

extension FileState: Equatable {
  /// Whether the two stand for the same contents: bytes compare with a digest by hashing them
  /// (only when the lengths agree).
  static func == (lhs: FileState, rhs: FileState) -> Bool {
    switch (lhs, rhs) {
    case (.missing, .missing): true
    case let (.contents(left), .contents(right)): left == right
    case let (.digest(left), .digest(right)): left == right
    case let (.contents(data), .digest(digest)), let (.digest(digest), .contents(data)): digest.matches(data)
    case (.missing, _), (.contents, _), (.digest, _): false
    }
  }
}

extension FileState {
  /// The longest contents a handle keeps as bytes; longer ones it keeps as a digest.
  ///
  /// Below it, comparing bytes costs less than hashing them, and what a handle holds beyond its
  /// value is at most this much. Above it, hashing costs less than decoding the same bytes
  /// (which every change of the file costs anyway).
  static let largestKeptContents = 64 * 1024

  /// What a handle keeps of this state to compare later reads with: itself, or the digest of
  /// contents longer than ``largestKeptContents``.
  var kept: FileState {
    guard case let .contents(data) = self, data.count > Self.largestKeptContents else { return self }
    return .digest(ContentDigest(data))
  }

  /// Whether this is a digest: knowledge to compare with, which cannot be decoded or written.
  var isDigest: Bool {
    if case .digest = self { return true }
    return false
  }

  /// Whether a reader that takes at most `limit` bytes may take this.
  func fits(_ limit: Int) -> Bool {
    switch self {
    case .missing: true
    case let .contents(data): data.count <= limit
    case let .digest(digest): digest.count <= limit
    }
  }
}

extension FileKnowledge {
  /// This knowledge as a handle keeps it: large contents as their digest (see
  /// ``FileState/kept``).
  var kept: FileKnowledge {
    guard let state, case let kept = state.kept, kept.isDigest else { return self }
    var knowledge = self
    knowledge.state = kept
    return knowledge
  }
}
