import Foundation

/// A directory of its own for one test, removed with everything in it when the object goes.
final class TemporaryTestDirectory: Sendable {
  let url: URL

  init() throws {
    var template = Array(
      (FileManager.default.temporaryDirectory.path + "/sharedstate-glib-XXXXXX").utf8CString
    )
    guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno)!) }
    url = URL(fileURLWithPath: String(cString: created))
  }

  /// The path of `name` inside the directory.
  func path(_ name: String) -> String {
    url.appendingPathComponent(name).path
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }
}
