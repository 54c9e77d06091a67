import Foundation

@testable import SharedState

extension StoredFile {
  /// ``StoredFile/write(_:ifStillHolding:)`` with the bytes a test spells as `Data`.
  func write(_ data: Data, ifStillHolding expected: FileState) throws -> FileState {
    try write(FileContents(data), ifStillHolding: expected)
  }

  /// ``StoredFile/createIfMissing(_:)`` with the bytes a test spells as `Data`.
  func createIfMissing(_ data: Data) throws -> FileState {
    try createIfMissing(FileContents(data))
  }
}

extension FileContents {
  /// The UTF-8 bytes of `text`.
  init(_ text: some StringProtocol) {
    self.init(Data(text.utf8))
  }
}
