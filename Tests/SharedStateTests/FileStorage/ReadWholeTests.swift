import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// Reading a whole file whose length `fstat` gave: every byte there is when it is read, whether
/// the file kept that length, grew or shrank since, and never more than the limit.
@Suite("File storage: reading a whole file")
struct ReadWholeTests {
  @Test(arguments: [0, 1, 4_095, 4_096, 4_097, 100_000])
  func aFileOfTheLengthStatGaveIsReadWhole(length: Int) throws {
    let (directory, descriptor) = try Self.file(holding: Self.bytes(length))
    defer { _ = directory; try? descriptor.close() }
    #expect(try FileReplacement.readWhole(descriptor, size: Int64(length), limit: 1 << 20) == Self.bytes(length))
  }

  @Test func aFileThatGrewSinceTheStatIsReadToItsEnd() throws {
    let (directory, descriptor) = try Self.file(holding: Self.bytes(50_000))
    defer { _ = directory; try? descriptor.close() }
    #expect(try FileReplacement.readWhole(descriptor, size: 10, limit: 1 << 20) == Self.bytes(50_000))
  }

  @Test func aFileThatShrankSinceTheStatIsReadAsItIsNow() throws {
    let (directory, descriptor) = try Self.file(holding: Self.bytes(3_000))
    defer { _ = directory; try? descriptor.close() }
    #expect(try FileReplacement.readWhole(descriptor, size: 9_000, limit: 1 << 20) == Self.bytes(3_000))
  }

  @Test func aFileThatGrewPastTheLimitIsRefused() throws {
    let (directory, descriptor) = try Self.file(holding: Self.bytes(5_000))
    defer { _ = directory; try? descriptor.close() }
    #expect(throws: FileTooLarge.self) {
      try FileReplacement.readWhole(descriptor, size: 100, limit: 4_000)
    }
  }

  /// `length` bytes that differ from one position to the next.
  private static func bytes(_ length: Int) -> Data {
    Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
  }

  /// A file holding `contents`, open for reading.
  private static func file(holding contents: Data) throws -> (TemporaryDirectory, FileDescriptor) {
    let directory = try TemporaryDirectory()
    let path = directory.path("file")
    try contents.write(to: URL(fileURLWithPath: path))
    return (directory, try FileDescriptor.open(path, .readOnly))
  }
}
