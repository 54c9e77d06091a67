import Foundation

/// A file's complete contents, as the library carries them from the disk or the coordination
/// page to a handle's knowledge and a key's decoder: up to ``inlineCapacity`` bytes in the value
/// itself, longer contents in a `Data`.
///
/// Why not `Data` alone: a watching process takes in every change of a setting from the page,
/// and `Data` keeps only 14 bytes inline. A longer setting (a nanosecond timestamp, a short
/// string) cost each watcher, on every change, two allocations, Foundation's one-time
/// initialization guards and its exclusivity checks: about 1.5–2 µs of the 35 µs a change costs
/// it (a `perf` profile of 16 watchers). Held here, such contents cost a copy of a few words.
///
/// Contents of at most ``inlineCapacity`` bytes are always held inline and longer ones always
/// in a `Data`, so that the form follows from the length alone.
struct FileContents: Sendable {
  /// The longest contents held inline: an `Int` of any size, a `Double`, a `Bool`, a short
  /// string, as JSON.
  static let inlineCapacity = 32

  private enum Storage: Sendable {
    case inline(count: UInt8, bytes: InlineBytes)
    case data(Data)
  }

  /// Room for ``inlineCapacity`` bytes.
  private typealias InlineBytes = (UInt64, UInt64, UInt64, UInt64)

  private let storage: Storage

  /// The contents `data` holds.
  init(_ data: Data) {
    if data.count <= Self.inlineCapacity {
      storage = data.withUnsafeBytes { Self.inline($0) }
    } else {
      storage = .data(data)
    }
  }

  /// A copy of the bytes `bytes` points to.
  init(copying bytes: UnsafeRawBufferPointer) {
    storage = bytes.count <= Self.inlineCapacity ? Self.inline(bytes) : .data(Data(bytes))
  }

  /// Copies `source` (at most ``inlineCapacity`` bytes) into inline storage.
  private static func inline(_ source: UnsafeRawBufferPointer) -> Storage {
    var bytes: InlineBytes = (0, 0, 0, 0)
    if let start = source.baseAddress {
      withUnsafeMutableBytes(of: &bytes) { $0.baseAddress?.copyMemory(from: start, byteCount: source.count) }
    }
    return .inline(count: UInt8(source.count), bytes: bytes)
  }

  /// The length in bytes.
  var count: Int {
    switch storage {
    case let .inline(count, _): Int(count)
    case let .data(data): data.count
    }
  }

  /// Whether there are no bytes at all.
  var isEmpty: Bool { count == 0 }

  /// Calls `body` with the bytes, valid only during the call.
  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    switch storage {
    case let .inline(count, bytes):
      try Swift.withUnsafeBytes(of: bytes) { try body(UnsafeRawBufferPointer(rebasing: $0[..<Int(count)])) }
    case let .data(data):
      try data.withUnsafeBytes(body)
    }
  }

  /// The bytes as `Data`, for a decoder or a caller outside the library: a copy when held
  /// inline (no allocation up to 14 bytes, `Data`'s own inline size).
  var data: Data {
    switch storage {
    case .inline: withUnsafeBytes { Data($0) }
    case let .data(data): data
    }
  }
}

extension FileContents: Equatable {
  /// Whether the two hold the same bytes.
  static func == (lhs: FileContents, rhs: FileContents) -> Bool {
    let count = lhs.count
    guard count == rhs.count else { return false }
    guard count > 0 else { return true }
    return lhs.withUnsafeBytes { left in
      rhs.withUnsafeBytes { right in memcmp(left.baseAddress!, right.baseAddress!, count) == 0 }
    }
  }
}

extension FileContents: CustomDebugStringConvertible {
  /// The bytes as text when they are UTF-8 of reasonable length (what a test failure shows),
  /// otherwise their count.
  var debugDescription: String {
    if count <= 256, let text = String(data: data, encoding: .utf8) { return text.debugDescription }
    return "\(count) bytes"
  }
}
