import Foundation

/// The empty file a file-storage key leaves where there was none, so that the file exists from
/// the first run (other programs and shells see it), as swift-sharing's does; and the bytes
/// swift-sharing's older placeholder held.
enum FilePlaceholder {
  /// What the placeholder holds: nothing, which reads as "no value", never as an error.
  static let contents = FileContents(Data())

  /// The bytes swift-sharing wrote as its placeholder: a file that holds exactly these holds no
  /// value either.
  ///
  /// A `StaticString`, not a stored `Data`: every value read is compared with it, and a stored
  /// `static let` is reached through `swift_once` at each use; its length, known when compiling,
  /// settles almost every comparison without looking at the bytes.
  static var swiftSharingStub: StaticString { "co.pointfree.Sharing.FileStorage.stub" }

  /// Whether `contents` hold no value: they are empty, or swift-sharing's placeholder.
  static func holdsNoValue(_ contents: FileContents) -> Bool {
    contents.isEmpty || isSwiftSharingStub(contents)
  }

  /// Whether `contents` are exactly swift-sharing's placeholder bytes.
  static func isSwiftSharingStub(_ contents: FileContents) -> Bool {
    let stub = swiftSharingStub
    guard contents.count == stub.utf8CodeUnitCount else { return false }
    return contents.withUnsafeBytes { $0.elementsEqual(UnsafeRawBufferPointer(start: stub.utf8Start, count: stub.utf8CodeUnitCount)) }
  }

  /// Whether a file in `state` is replaced by the placeholder: it is missing, or holds
  /// swift-sharing's placeholder bytes.
  static func isReplaced(_ state: FileState) -> Bool {
    switch state {
    case .missing: true
    case let .contents(contents): isSwiftSharingStub(contents)
    // Longer than any placeholder.
    case .digest: false
    }
  }
}
