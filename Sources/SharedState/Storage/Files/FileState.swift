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
  case contents(FileContents)
  /// The digest of the file's contents, in place of contents longer than
  /// ``largestKeptContents``.
  case digest(ContentDigest)
}

// Compared case by case, never as a tuple (`switch (lhs, rhs)`): the optimizer merges the outlined
// code that destroys such a tuple with that of other tuples of the same layout, and the merged
// function destroys it through the run time's generic tuple witnesses (`tuple_destroy`), which
// cost a watching process about a microsecond per change (a `perf` profile of 16 watchers).
extension FileState: Equatable {
  /// Whether the two stand for the same contents: bytes compare with a digest by hashing them
  /// (only when the lengths agree).
  static func == (lhs: FileState, rhs: FileState) -> Bool {
    switch lhs {
    case .missing:
      if case .missing = rhs { true } else { false }
    case let .contents(left):
      switch rhs {
      case let .contents(right): left == right
      case let .digest(digest): digest.matches(left)
      case .missing: false
      }
    case let .digest(left):
      switch rhs {
      case let .digest(right): left == right
      case let .contents(data): left.matches(data)
      case .missing: false
      }
    }
  }
}

extension FileState {
  /// The file's complete contents, `data`.
  static func contents(_ data: Data) -> FileState {
    .contents(FileContents(data))
  }
}

extension Optional<FileState> {
  /// Whether the two are both `nil`, or stand for the same contents: `==` without the tuple that
  /// `Optional`'s own forms (see `FileState`'s `==`).
  func isSame(as other: FileState?) -> Bool {
    // Case by case, each side's payload compared where it lies: unwrapping a side first copies
    // it out, through the run time's witnesses for the optional's type (eight look-ups of that
    // type per change in a watching process).
    switch self {
    case .none:
      if case .none = other { true } else { false }
    case .missing?:
      if case .missing? = other { true } else { false }
    case let .contents(left)?:
      switch other {
      case let .contents(right)?: left == right
      case let .digest(digest)?: digest.matches(left)
      case .missing?, .none: false
      }
    case let .digest(left)?:
      switch other {
      case let .digest(right)?: left == right
      case let .contents(contents)?: left.matches(contents)
      case .missing?, .none: false
      }
    }
  }

  /// Whether this is `.missing`: no file at the name.
  var isMissing: Bool {
    if case .missing? = self { true } else { false }
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
    guard case let .contents(contents) = self, contents.count > Self.largestKeptContents else { return self }
    return .digest(ContentDigest(contents))
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
    case let .contents(contents): contents.count <= limit
    case let .digest(digest): digest.count <= limit
    }
  }
}

extension FileKnowledge {
  /// This knowledge as a handle keeps it: large contents as their digest (see
  /// ``FileState/kept``).
  var kept: FileKnowledge {
    guard case let .contents(contents)? = state, contents.count > FileState.largestKeptContents else { return self }
    var knowledge = self
    knowledge.state = .digest(ContentDigest(contents))
    return knowledge
  }

  /// Whether ``kept`` differs from this knowledge: it holds contents longer than
  /// ``FileState/largestKeptContents``.
  var holdsLargeContents: Bool {
    guard case let .contents(contents)? = state else { return false }
    return contents.count > FileState.largestKeptContents
  }
}
