import Foundation

/// The error for a file longer than its reader's limit (``DiskFile``'s `maximumReadSize`): it
/// was not read, and nothing was allocated for it.
///
/// Anyone who can write a shared directory can put a file of any length at a key's name (a
/// sparse file of terabytes costs no disk space), so every read is bounded, checked with
/// `fstat` before a byte is read.
struct FileTooLarge: Error, Equatable, CustomStringConvertible {
  /// The file's length, as `fstat` (or the read, for a file that grew meanwhile) found it.
  let size: Int64
  /// The most bytes the reader reads.
  let limit: Int

  var description: String {
    "it is \(Self.describe(size)), more than the \(Self.describe(Int64(limit))) this key reads at most (its maximumReadSize)"
  }

  /// `10 GiB (10737418240 bytes)`; exact bytes alone below a KiB.
  static func describe(_ bytes: Int64) -> String {
    let units: [(String, Int64)] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)]
    guard let (name, unit) = units.first(where: { bytes >= $0.1 }) else { return "\(bytes) bytes" }
    let whole = bytes % unit == 0
    let amount = whole ? "\(bytes / unit)" : String(format: "%.1f", Double(bytes) / Double(unit))
    return "\(amount) \(name) (\(bytes) bytes)"
  }
}
