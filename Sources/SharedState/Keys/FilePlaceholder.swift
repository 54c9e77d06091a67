import Foundation

/// The empty file a file-storage key leaves where there was none, so that the file exists from
/// the first run (other programs and shells see it), as swift-sharing's does; and the bytes
/// swift-sharing's older placeholder held.
enum FilePlaceholder {
  /// What the placeholder holds: nothing, which reads as "no value", never as an error.
  static let contents = Data()

  /// The bytes swift-sharing wrote as its placeholder (`co.pointfree.Sharing.FileStorage.stub`):
  /// a file that holds exactly these holds no value either.
  static let swiftSharingStub = Data("co.pointfree.Sharing.FileStorage.stub".utf8)

  /// Whether `data` holds no value: it is empty, or swift-sharing's placeholder.
  static func holdsNoValue(_ data: Data) -> Bool {
    data.isEmpty || data == swiftSharingStub
  }

  /// Whether a file in `state` is replaced by the placeholder: it is missing, or holds
  /// swift-sharing's placeholder bytes.
  static func isReplaced(_ state: FileState) -> Bool {
    switch state {
    case .missing: true
    case let .contents(data): data == swiftSharingStub
    // Longer than any placeholder.
    case .digest: false
    }
  }
}
