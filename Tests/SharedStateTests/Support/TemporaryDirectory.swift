import Foundation
import SharedState

/// A fresh directory for one test, removed when the test's value goes away.
final class TemporaryDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("SharedStateTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// A path inside the directory.
  func path(_ name: String) -> String {
    url.appendingPathComponent(name).path
  }

  /// The names of what the directory holds, sorted.
  func contents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
  }

  /// The text of the file that holds the app-storage key `key` when the directory is a suite,
  /// or `nil` when there is none.
  func contents(ofKey key: String) throws -> String? {
    let path = path(try AppStorageSuite.fileName(forKey: key))
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try String(contentsOfFile: path, encoding: .utf8)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
