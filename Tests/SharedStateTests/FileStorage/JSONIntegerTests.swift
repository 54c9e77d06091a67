import Dependencies
import DependenciesTestSupport
import Foundation
import Testing

@testable import SharedState

/// An `Int` is written and read without Foundation's coders (``JSONInteger``): the bytes must be
/// the coders' own, and a value the fast path turns down must still reach the coders.
@Suite("JSON of an Int without the coders", .dependency(\.defaultFileStorage, .fileSystem))
struct JSONIntegerTests {
  static let samples: [Int] = [
    0, 1, -1, 9, 10, -10, 42, 99, 100, 1_234_567_890, Int.max, Int.min, Int.max - 1, Int.min + 1,
  ]

  @Test func writesWhatJSONEncoderWrites() throws {
    var generator = SystemRandomNumberGenerator()
    let values = Self.samples + (0..<2_000).map { _ in Int.random(in: .min ... .max, using: &generator) }
      + (0..<2_000).map { _ in Int.random(in: -1_000...1_000, using: &generator) }
    for value in values {
      #expect(JSONInteger.text(of: value).data == (try JSONEncoder().encode(value)), "\(value)")
      #expect(JSONInteger.text(of: value, endingLine: true).data == (try JSONEncoder().encode(value)) + Data("\n".utf8), "\(value)")
    }
  }

  @Test func readsWhatItWritesAndWhatJSONDecoderReadsAlike() throws {
    var generator = SystemRandomNumberGenerator()
    let values = Self.samples + (0..<2_000).map { _ in Int.random(in: .min ... .max, using: &generator) }
    for value in values {
      let text = JSONInteger.text(of: value)
      #expect(JSONInteger.value(in: text) == value)
      #expect(JSONInteger.value(in: FileContents(text.data + Data("\n".utf8))) == value)
    }
    // A slice of larger bytes (as a page's snapshot may hand over) is read from its own start.
    #expect(JSONInteger.value(in: FileContents(Data("x-12\n".utf8).dropFirst())) == -12)
    // Not the fast path's: left to the decoder, which decides as it always did.
    let refused = [
      "", "-", "007", "-0012", "+1", "1.0", "1e3", " 1", "1 ", "1\n\n", "\"1\"", "99999999999999999999",
      "9223372036854775808", "-9223372036854775809", "12a", "1-", "--1", "-\n", "\n", "1\n2",
    ]
    for text in refused {
      #expect(JSONInteger.value(in: FileContents(text)) == nil, "\(text)")
    }
  }

  /// An encoder or decoder of a class of its own may write and read otherwise: it is used.
  @Test func aSubclassedCoderOfAnIntegerKeyIsUsed() throws {
    final class QuotingEncoder: JSONEncoder, @unchecked Sendable {
      override func encode<T: Encodable>(_ value: T) throws -> Data {
        Data("\"\(value)\"".utf8)
      }
    }
    final class UnquotingDecoder: JSONDecoder, @unchecked Sendable {
      override func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let text = String(decoding: data.filter { $0 != UInt8(ascii: "\"") }, as: UTF8.self)
        return try super.decode(type, from: Data(text.utf8))
      }
    }
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("quoted.json"))
    do {
      @Shared(.fileStorage(url, decoder: UnquotingDecoder(), encoder: QuotingEncoder())) var count = 0
      $count.withLock { $0 = 12 }
    }
    #expect(try String(contentsOf: url, encoding: .utf8) == "\"12\"")
    try Data("\"34\"".utf8).write(to: url)
    let key = FileStorageKey<Int>.fileStorage(url, decoder: UnquotingDecoder(), encoder: QuotingEncoder())
    @SharedReader(key) var read = 0
    #expect(read == 34)
  }
}
