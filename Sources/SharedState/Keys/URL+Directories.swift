import Foundation

// The directories Foundation names on Apple platforms, and not on Linux, placed where the XDG
// Base Directory Specification and xdg-user-dirs put them, so that code written for
// `.fileStorage(.documentsDirectory.appending(path: "saved-games.json"))` runs as written.
// Each honours its environment variable when that is an absolute path (relative ones are to be
// ignored, says the specification) and falls back to the specification's default under the
// home directory otherwise.

extension URL {
  /// The user's documents: `$XDG_DOCUMENTS_DIR`, otherwise `~/Documents`.
  public static var documentsDirectory: URL {
    xdgDirectory(environment: "XDG_DOCUMENTS_DIR", fallback: "Documents")
  }

  /// Where a program keeps the data it makes for the user: `$XDG_DATA_HOME`, otherwise
  /// `~/.local/share`. Put your program's own folder inside it.
  public static var applicationSupportDirectory: URL {
    xdgDirectory(environment: "XDG_DATA_HOME", fallback: ".local/share")
  }

  /// Where a program keeps what it can make again: `$XDG_CACHE_HOME`, otherwise `~/.cache`.
  public static var cachesDirectory: URL {
    xdgDirectory(environment: "XDG_CACHE_HOME", fallback: ".cache")
  }

  /// Where a program keeps its settings: `$XDG_CONFIG_HOME`, otherwise `~/.config` (where
  /// ``AppStorageSuite/init(named:filePermissions:directoryPermissions:durability:maximumReadSize:)`` puts suites).
  public static var configurationDirectory: URL {
    xdgDirectory(environment: "XDG_CONFIG_HOME", fallback: ".config")
  }

  /// Where a program keeps state worth keeping between runs but not worth backing up (history,
  /// logs, open documents): `$XDG_STATE_HOME`, otherwise `~/.local/state`.
  public static var stateDirectory: URL {
    xdgDirectory(environment: "XDG_STATE_HOME", fallback: ".local/state")
  }

  private static func xdgDirectory(environment name: String, fallback: String) -> URL {
    if let value = ProcessInfo.processInfo.environment[name], value.hasPrefix("/") {
      return URL(fileURLWithPath: value, isDirectory: true)
    }
    return URL.homeDirectory.appendingPathComponent(fallback, isDirectory: true)
  }
}
