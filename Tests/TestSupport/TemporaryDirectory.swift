import Foundation

/// A fresh directory for one test, removed with everything in it when the object goes away.
public final class TemporaryDirectory: Sendable {
  /// Where the directory is.
  public let url: URL

  /// Makes the directory, under the system's temporary directory, with a name no other test has.
  public init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("SharedStateTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The path of `name` inside the directory.
  public func path(_ name: String) -> String {
    url.appendingPathComponent(name).path
  }

  /// The names of what the directory holds, sorted.
  public func contents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
