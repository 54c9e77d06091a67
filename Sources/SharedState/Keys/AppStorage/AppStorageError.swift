/// Why an app-storage suite or key cannot be used.
public struct AppStorageError: Error, Equatable, CustomStringConvertible {
  /// What went wrong.
  public enum Reason: Sendable, Equatable {
    /// The key's name maps to a file name longer than the file system allows (see
    /// ``AppStorageSuite/fileName(forKey:)``). Nothing is read or written for it.
    case keyNameTooLong
    /// A suite name must be one directory name: not empty, not `.` or `..`, without `/` or NUL.
    case invalidSuiteName
    /// Neither `XDG_CONFIG_HOME`, `HOME` nor the user database names a directory to put a named
    /// suite in.
    case noConfigurationDirectory
  }

  /// What went wrong.
  public let reason: Reason
  /// The key's or the suite's name.
  public let name: String

  /// Creates the error.
  public init(_ reason: Reason, name: String) {
    self.reason = reason
    self.name = name
  }

  /// One sentence, without a final period, that says what cannot be used and why.
  public var description: String {
    switch reason {
    case .keyNameTooLong:
      let shown = name.count > 40 ? String(name.prefix(40)) + "…" : name
      return "The app-storage key \(String(reflecting: shown)) (\(name.utf8.count) bytes) is too long "
        + "to be a file name: keys may take up to \(AppStorageFileName.maximumStemLength) bytes "
        + "once encoded"
    case .invalidSuiteName:
      return "\(String(reflecting: name)) is not a valid suite name: it must be one directory name, "
        + "not empty, '.' or '..', without '/' or NUL"
    case .noConfigurationDirectory:
      return "The suite \(String(reflecting: name)) has no place to live: neither XDG_CONFIG_HOME, "
        + "HOME nor the user database names a home directory"
    }
  }
}
