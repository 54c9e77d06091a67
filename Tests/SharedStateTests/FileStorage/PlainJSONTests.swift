import Foundation
import Testing

@testable import SharedState

/// `Bool` and `String` are written and read without Foundation's coders (``PlainJSON``; `Int` has
/// ``JSONIntegerTests``): what the fast path writes must be the encoder's bytes, what it reads
/// the decoder's value, and what it turns down must be left to the coders.
@Suite("JSON of a Bool or a String without the coders")
struct PlainJSONTests {
  /// Strings a setting may hold, and strings that need escapes or are otherwise unusual.
  static let strings: [String] = [
    "", "dark", "Dark Theme 2", "a/b", "/", "https://example.com/a?b=c", "é", "日本語", "🙂👍🏽",
    "\u{7F}", "\u{80}", "\u{2028}", "\u{2029}", "\u{FFFF}", "\u{10FFFF}", "a\"b", "\"", "a\\b", "\\",
    "line\nbreak", "\t", "\u{0}", "\u{1F}", " spaces ", "'single'", "\u{FEFF}bom", "null", "true", "1",
  ]

  @Test func writesWhatJSONEncoderWrites() throws {
    var generator = SystemRandomNumberGenerator()
    let alphabet = Array("ab/\"\\é日🙂 \u{7F}\u{2028}\n\u{1}")
    let random = (0..<2_000).map { _ in
      String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
    }
    for escapingSlashes in [true, false] {
      let encoder = JSONEncoder()
      if !escapingSlashes { encoder.outputFormatting = .withoutEscapingSlashes }
      for string in Self.strings + random {
        let expected = try encoder.encode(string)
        let needsEscapes = string.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
        for endingLine in [false, true] {
          let text = PlainJSON.text(of: string, as: .string, escapingSlashes: escapingSlashes, endingLine: endingLine)
          // Taken by the fast path unless it needs escapes, and then the encoder's bytes.
          #expect((text == nil) == needsEscapes, "\(String(reflecting: string))")
          if let text {
            #expect(text.data == expected + (endingLine ? Data("\n".utf8) : Data()), "\(String(reflecting: string))")
          }
        }
      }
    }
    for value in [false, true] {
      let expected = try JSONEncoder().encode(value)
      #expect(PlainJSON.text(of: value, as: .boolean, escapingSlashes: true, endingLine: false)?.data == expected)
      #expect(PlainJSON.text(of: value, as: .boolean, escapingSlashes: true, endingLine: true)?.data == expected + Data("\n".utf8))
    }
  }

  @Test func readsWhatJSONDecoderReads() throws {
    var texts: [Data] = []
    for string in Self.strings {
      for options: JSONEncoder.OutputFormatting in [[], .withoutEscapingSlashes] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = options
        let encoded = try encoder.encode(string)
        texts += [encoded, encoded + Data("\n".utf8)]
      }
    }
    // Text the fast path must leave alone, or read as the decoder does.
    texts += [
      "\"abc", "abc\"", "\"a\"b\"", "\"\\u0041\"", "\"a\tb\"", "\"a\" ", " \"a\"", "\"a\"\n\n", "\"a\"\r\n",
      "'a'", "\"\"", "\"", "null", "1", "true", "false", "true\n", "false\n", "True", "true ", " true",
      "tru", "truee", "fals", "0", "", "\n", "\"true\"",
    ].map { Data($0.utf8) }
    // Bytes that are not UTF-8 between the quotes: a lone continuation byte, a truncated
    // sequence, an overlong encoding, an encoded surrogate.
    texts += [[0x80], [0xE6, 0x97], [0xC0, 0xAF], [0xED, 0xA0, 0x80]].map { Data([0x22] + $0 + [0x22]) }
    let decoder = JSONDecoder()
    for text in texts {
      let contents = FileContents(text)
      let shown = String(reflecting: String(decoding: text, as: UTF8.self))
      let string = PlainJSON.parse(contents, as: .string)?.value(as: String.self)
      if let string { #expect(string == (try? decoder.decode(String.self, from: text)), "\(shown)") }
      let bool = PlainJSON.parse(contents, as: .boolean)?.value(as: Bool.self)
      if let bool { #expect(bool == (try? decoder.decode(Bool.self, from: text)), "\(shown)") }
    }
    // What the fast path writes, it reads.
    for string in Self.strings {
      for endingLine in [false, true] {
        guard let text = PlainJSON.text(of: string, as: .string, escapingSlashes: false, endingLine: endingLine) else { continue }
        #expect(PlainJSON.parse(text, as: .string)?.value(as: String.self) == string, "\(String(reflecting: string))")
      }
    }
    for value in [false, true] {
      let text = try #require(PlainJSON.text(of: value, as: .boolean, escapingSlashes: true, endingLine: true))
      #expect(PlainJSON.parse(text, as: .boolean)?.value(as: Bool.self) == value)
    }
  }

  /// A decoder told to assume a top-level dictionary reads none of these scalars: a key with
  /// one decodes through it, as it would without the fast path.
  @Test func aDecoderThatAssumesADictionaryKeepsTheCoders() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("value.json"))
    let assuming = JSONDecoder()
    assuming.assumesTopLevelDictionary = true
    let plain: FileStorageKey<Int> = .fileStorage(url)
    let withDictionary: FileStorageKey<Int> = .fileStorage(url, decoder: assuming)
    let contents = FileState.contents(Data("42".utf8))
    #expect(try plain.decoded(contents).get() == 42)
    #expect(throws: (any Error).self) { try withDictionary.decoded(contents).get() }
    #expect(throws: (any Error).self) { try assuming.decode(Int.self, from: Data("42".utf8)) }
  }

  /// The fast path is the keys': a file key writes a string as `JSONEncoder()` does (slashes
  /// escaped), and reads it back.
  @Test func aFileKeyWritesAStringAsJSONEncoderDoes() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("theme.json"))
    let key: FileStorageKey<String> = .fileStorage(url)
    let contents = try #require(try key.encode("dark/blue"))
    #expect(contents.data == (try JSONEncoder().encode("dark/blue")))
  }
}
