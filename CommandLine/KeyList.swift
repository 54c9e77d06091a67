import Foundation
import SharedState
import SharedStatePostgres

/// The keys that have a value in a suite or a PostgreSQL namespace, and their printing.
public enum KeyList {
  /// How each key is printed.
  public enum Format: Sendable {
    /// One key a line (ambiguous for a key that holds a newline).
    case lines
    /// Each key ended by a NUL byte, for `xargs -0`.
    case null
    /// Each key as a JSON string, one a line (JSON lines).
    case json
  }

  /// The keys of `suite` that have a value, sorted.
  ///
  /// - Throws: ``CommandError`` when the directory cannot be read.
  public static func keys(of suite: AppStorageSuite) throws -> [String] {
    do {
      return try suite.keys()
    } catch {
      throw CommandError("The keys of \(suite) could not be listed: \(error)")
    }
  }

  /// The keys of `store`'s namespace that have a value, sorted by their bytes.
  ///
  /// - Throws: ``CommandError`` when the server cannot be asked.
  public static func keys(of store: PostgresStore) throws -> [String] {
    do {
      return try store.keys()
    } catch {
      throw CommandError(String(describing: error))
    }
  }

  /// Prints `keys` on standard output in `format`.
  public static func print(_ keys: [String], as format: Format) {
    switch format {
    case .null:
      FileHandle.standardOutput.write(Data(keys.map { $0 + "\0" }.joined().utf8))
    case .json:
      // A JSON string: quotes, backslashes and control characters escaped.
      for key in keys {
        Output.line(JSONValue.string(key).compactJSON)
      }
    case .lines:
      for key in keys {
        Output.line(key)
      }
    }
  }
}
