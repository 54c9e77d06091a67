import Foundation
import SharedState
import TestSupport

/// The tests' temporary directories, from the test support shared by both test targets.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory

extension TemporaryDirectory {
  /// The text of the file that holds the app-storage key `key` when the directory is a suite,
  /// or `nil` when there is none.
  func contents(ofKey key: String) throws -> String? {
    let path = path(try AppStorageSuite.fileName(forKey: key))
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    return try String(contentsOfFile: path, encoding: .utf8)
  }
}
