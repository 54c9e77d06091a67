import SystemPackage

// Absolute, lexically normal paths taken apart and compared on their text.
//
// swift-system's component views check their invariants in debug builds, where one call of
// `lastComponent`, `removeLastComponent()`, `starts(with:)` or `lexicallyNormalized()` costs
// about 2 ms on these machines (a debug build is what `swift test` runs, and what a program
// runs while it is written). The watcher's reader takes every wanted directory apart each time
// it plans its watches; at 2 ms a call, on a loaded machine, a plan took seconds and no event
// was read meanwhile. On an absolute, lexically normal path the text gives the same answers.

extension FilePath {
  /// The directory and the last name of this absolute, lexically normal path: `/a/b` gives
  /// `/a` and `b`, `/a` gives `/` and `a`; `nil` for `/` and for a path that is not absolute.
  ///
  /// The same answer as `removingLastComponent()` and `lastComponent` give such a path.
  var directoryAndName: (directory: FilePath, name: String)? {
    // By bytes: a name that begins with a combining mark would join the separator's character.
    let bytes = string.utf8
    guard bytes.first == UInt8(ascii: "/"), bytes.count > 1, let separator = bytes.lastIndex(of: UInt8(ascii: "/"))
    else { return nil }
    let name = String(decoding: bytes[bytes.index(after: separator)...], as: UTF8.self)
    guard !name.isEmpty else { return nil }
    let directory = separator == bytes.startIndex ? "/" : String(decoding: bytes[..<separator], as: UTF8.self)
    return (FilePath(directory), name)
  }

  /// Whether this absolute, lexically normal path is `ancestor` or lies inside it, as
  /// `starts(with:)` answers for such paths: `/a/bc` is not inside `/a/b`.
  func isSameOrInside(_ ancestor: FilePath) -> Bool {
    let text = string
    let prefix = ancestor.string
    // Bytes, not `hasPrefix`: names are compared as the file system does, not as Unicode text.
    guard text.utf8.starts(with: prefix.utf8) else { return false }
    if text.utf8.count == prefix.utf8.count || prefix.utf8.last == UInt8(ascii: "/") { return true }
    return text.utf8.dropFirst(prefix.utf8.count).first == UInt8(ascii: "/")
  }

  /// Whether this path is absolute and already lexically normal: no empty, `.` or `..`
  /// component, and no separator at the end (but for `/` itself).
  var isAbsoluteAndLexicallyNormal: Bool {
    let bytes = Array(string.utf8)
    guard bytes.first == UInt8(ascii: "/") else { return false }
    if bytes.count == 1 { return true }
    guard bytes.last != UInt8(ascii: "/") else { return false }
    let dot = UInt8(ascii: ".")
    let components = bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    return !components.contains { $0.isEmpty || $0.elementsEqual([dot]) || $0.elementsEqual([dot, dot]) }
  }
}
