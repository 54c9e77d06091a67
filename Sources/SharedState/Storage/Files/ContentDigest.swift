import Foundation

/// What a handle keeps of a large file's contents in place of its bytes: the length and a
/// 128-bit keyed hash, enough to tell whether bytes read later are the same without holding a
/// second copy of a value the program already holds decoded.
///
/// Known only inside this process, never stored or sent: the hash is keyed by the process's
/// random seed (see ``init(_:)``), so it differs from one run to the next.
struct ContentDigest: Hashable, Sendable {
  /// The contents' length in bytes.
  let count: Int
  private let first: Int
  private let second: Int

  /// Hashes `contents`.
  ///
  /// Why two `Hasher`s are enough: `Hasher` is SipHash-1-3 keyed with a 128-bit seed drawn at
  /// random when the process starts, a keyed pseudo-random function. Fed two different fixed
  /// prefixes, it computes the function on two different inputs for the same bytes, so the two
  /// 64-bit results behave as independent values: two different contents of the same length
  /// give the same pair with a chance of about 2^-128, and since the key is secret and new in
  /// each process, nobody (another user writing the file, say) can prepare two contents that
  /// collide. (With `SWIFT_DETERMINISTIC_HASHING` set the key is fixed and known; accidental
  /// collisions stay as unlikely, only prepared ones become possible, and they could only hide
  /// a change from this process, which the other user could make anyway.) The length is
  /// compared on its own as well, and hashed first, so contents of different lengths never
  /// compare equal.
  ///
  /// It costs one pass over the bytes, fed to both hashers a slice at a time so that each slice
  /// is read from memory once: about 0.7 ms per MB on these machines (2.5 ms under heavy
  /// load), less than decoding the same bytes.
  init(_ contents: FileContents) {
    var first = Hasher()
    var second = Hasher()
    first.combine(Self.firstPrefix)
    second.combine(Self.secondPrefix)
    first.combine(contents.count)
    second.combine(contents.count)
    contents.withUnsafeBytes { bytes in
      var start = 0
      while start < bytes.count {
        let end = min(start + Self.slice, bytes.count)
        let part = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        first.combine(bytes: part)
        second.combine(bytes: part)
        start = end
      }
    }
    count = contents.count
    self.first = first.finalize()
    self.second = second.finalize()
  }

  /// Whether `contents` are the contents this digest was made of (hashed only when the lengths
  /// agree).
  func matches(_ contents: FileContents) -> Bool {
    contents.count == count && ContentDigest(contents) == self
  }

  // Fixed and different; any two distinct values would do.
  private static let firstPrefix: UInt64 = 0x5368_6172_6564_0001
  private static let secondPrefix: UInt64 = 0x5368_6172_6564_0002
  /// Small enough to stay in the cache between the two hashers.
  private static let slice = 32 * 1024
}
