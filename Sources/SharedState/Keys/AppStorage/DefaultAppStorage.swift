import Dependencies
import Foundation
import IssueReporting

extension DependencyValues {
  /// The suite that `.appStorage` keys use when none is given.
  ///
  /// - In a program: the suite named after the executable, `$XDG_CONFIG_HOME/PROGRAM/` or
  ///   `~/.config/PROGRAM/`.
  /// - In each test: a fresh ``AppStorageSuite/temporary()`` suite, so that tests do not see each
  ///   other's values and nothing outlives the test run.
  /// - In previews: a fresh ``AppStorageSuite/inMemory(_:)`` suite.
  public var defaultAppStorage: AppStorageSuite {
    get { self[AppStorageSuiteDependencyKey.self] }
    set { self[AppStorageSuiteDependencyKey.self] = newValue }
  }
}

private enum AppStorageSuiteDependencyKey: DependencyKey {
  static var liveValue: AppStorageSuite {
    let name = ProcessInfo.processInfo.processName
    do {
      return try AppStorageSuite(named: name)
    } catch {
      // Only a program without a home directory gets here; its values then last as long as it.
      reportIssue("\(error). App storage uses a temporary suite instead.")
      return .temporary()
    }
  }
  static var testValue: AppStorageSuite { .temporary() }
  static var previewValue: AppStorageSuite { .inMemory() }
}

extension DependencyValues {
  /// Whether app storage warns about key names that key-value observing cannot watch: kept so
  /// that code written for swift-sharing compiles, and has no effect.
  ///
  /// swift-sharing warns about key names such as `"co.pointfree.isEnabled"` or `"@count"`,
  /// because `UserDefaults` observes them less well. Here every key name is a file name in the
  /// suite directory, watched like any other, so there is nothing to warn about.
  public var appStorageKeyFormatWarningEnabled: Bool {
    get { self[AppStorageKeyFormatWarningKey.self] }
    set { self[AppStorageKeyFormatWarningKey.self] = newValue }
  }
}

private enum AppStorageKeyFormatWarningKey: DependencyKey {
  static let liveValue = true
}
