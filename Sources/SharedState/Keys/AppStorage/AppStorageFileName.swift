/// The reversible mapping between app-storage key names and the names of their files in the
/// suite directory.
///
/// A key's file is its name, encoded, followed by `.json`:
///
/// - Bytes that cannot or should not appear in a file name are written `%XX` (two upper-case
///   hexadecimal digits): `/`, NUL and the other control characters (U+0000–U+001F, U+007F),
///   `%` itself, and a `.` at the start (so that no key file is hidden, and `.`, `..` and the
///   storage layer's companion files, which all start with `.`, can never be a key's file).
/// - The empty key is written `%`.
/// - Everything else, including every non-ASCII character, stays as its UTF-8 bytes, so that a
///   person sees the key in the file name.
///
/// Every name this produces is one file name inside the suite directory. Decoding accepts only
/// what encoding produces: a file name with lower-case escapes, an escape that was not needed,
/// bytes that are not UTF-8, or without `.json`, is no key's file.
enum AppStorageFileName {
  /// The file-name extension of every key's file.
  static let fileExtension = ".json"

  /// The longest encoded key, in bytes: the companion files add 21 bytes to the file name
  /// (`.NAME.sharedstate-scratch`), and file names on Linux are at most 255 bytes.
  static let maximumStemLength = 255 - 21 - fileExtension.utf8.count

  /// The file name for `key`.
  ///
  /// - Throws: ``AppStorageError/Reason/keyNameTooLong`` when the name would be too long.
  static func fileName(forKey key: String) throws(AppStorageError) -> String {
    var stem: [UInt8] = []
    stem.reserveCapacity(key.utf8.count)
    if key.isEmpty { stem.append(percent) }
    for (offset, byte) in key.utf8.enumerated() {
      if needsEscaping(byte, atStart: offset == 0) {
        stem += [percent, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
      } else {
        stem.append(byte)
      }
      if stem.count > maximumStemLength { throw AppStorageError(.keyNameTooLong, name: key) }
    }
    // Valid UTF-8: the input's multi-byte sequences are kept whole, escapes are ASCII.
    return String(decoding: stem, as: UTF8.self) + fileExtension
  }

  /// The key whose file is named `fileName`, or `nil` when no key's file has that name.
  static func key(forFileName fileName: some Collection<UInt8>) -> String? {
    let suffix = Array(fileExtension.utf8)
    guard fileName.count > suffix.count, fileName.first != UInt8(ascii: "."),
      fileName.suffix(suffix.count).elementsEqual(suffix)
    else { return nil }
    let stem = Array(fileName.dropLast(suffix.count))
    var bytes: [UInt8] = []
    if stem != [percent] {
      var index = 0
      while index < stem.count {
        guard stem[index] == percent else {
          bytes.append(stem[index])
          index += 1
          continue
        }
        guard index + 2 < stem.count,
          let high = hexDigits.firstIndex(of: stem[index + 1]),
          let low = hexDigits.firstIndex(of: stem[index + 2])
        else { return nil }
        bytes.append(UInt8(high << 4 | low))
        index += 3
      }
    }
    guard let key = String(validating: bytes, as: UTF8.self),
      // Only the canonical spelling of a key counts, so that one key has one file.
      let canonical = try? self.fileName(forKey: key),
      canonical.utf8.elementsEqual(fileName)
    else { return nil }
    return key
  }

  private static let percent = UInt8(ascii: "%")
  private static let hexDigits = Array("0123456789ABCDEF".utf8)

  private static func needsEscaping(_ byte: UInt8, atStart: Bool) -> Bool {
    byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == percent
      || (atStart && byte == UInt8(ascii: "."))
  }
}
