import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// ``FileContents`` holds short contents inline and longer ones in a `Data`: either way it must
/// give back exactly the bytes it was given, and compare by bytes alone.
@Suite("File contents, inline and in Data")
struct FileContentsTests {
  /// Every length around the inline capacity, and well past it.
  static let lengths = Array(0...(FileContents.inlineCapacity + 3)) + [64, 100, 4096]

  @Test func givesBackTheBytesItWasGiven() {
    var generator = SystemRandomNumberGenerator()
    for length in Self.lengths {
      let data = Data((0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
      let contents = FileContents(data)
      #expect(contents.count == length)
      #expect(contents.isEmpty == (length == 0))
      #expect(contents.data == data, "length \(length)")
      #expect(contents.withUnsafeBytes { Data($0) } == data, "length \(length)")
      // Made from raw bytes (as the page makes them) or from a slice (a read's buffer), the same.
      let copied = data.withUnsafeBytes { FileContents(copying: $0) }
      #expect(copied == contents, "length \(length)")
      let slice = (Data([9]) + data + Data([9])).dropFirst().dropLast()
      #expect(FileContents(slice) == contents, "length \(length)")
    }
  }

  @Test func comparesByEveryByteAndTheLength() {
    for length in Self.lengths where length > 0 {
      let data = Data(repeating: UInt8(ascii: "7"), count: length)
      let contents = FileContents(data)
      for position in [0, length / 2, length - 1] {
        var changed = data
        changed[position] = UInt8(ascii: "8")
        #expect(FileContents(changed) != contents, "length \(length), byte \(position)")
      }
      // A prefix, and the same bytes with one more (zero) byte: different contents.
      #expect(FileContents(data.dropLast()) != contents, "length \(length)")
      #expect(FileContents(data + Data([0])) != contents, "length \(length)")
    }
    #expect(FileContents(Data()) == FileContents(Data()))
    #expect(FileContents(Data()) != FileContents(Data([0])))
  }

  /// Values of every length around the inline capacity travel from a writer to a reader (through
  /// the coordination page when they fit it) unchanged, and a value read again is no change.
  @Test func valuesOfEveryLengthReachAnotherHandle() throws {
    let directory = try TemporaryDirectory()
    let target = FilePath(directory.path("value.json"))
    let writer = DiskFile.forTesting(target)
    let watcher = DiskFile.forTesting(target)
    #expect(try watcher.read() == .missing)
    for length in Self.lengths {
      let text = String(repeating: "4", count: length)
      let transaction = writer.beginTransaction()
      try transaction.commit(.contents(FileContents(text)))
      transaction.end()
      #expect(try watcher.readIfChanged(on: .catchUp) == .contents(Data(text.utf8)), "length \(length)")
      #expect(watcher.reading(on: .catchUp).isNothingNew, "length \(length)")
    }
  }
}
