import Foundation
import Testing

@testable import SharedState

/// `Bool`, `Double` and `String` are written and read without Foundation's coders (``PlainJSON``;
/// `Int` has ``JSONIntegerTests``): what the fast path writes must be the encoder's bytes, what it
/// reads the decoder's value, and what it turns down must be left to the coders.
@Suite("JSON of a Bool, a Double or a String without the coders")
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

  /// Doubles a setting may hold, and the edges of the type.
  static let doubles: [Double] = [
    0, -0.0, 1, -1, 0.5, 0.1, 0.2, 0.30000000000000004, 1.5, 100, 1e15, 1e16, 1e17, 1e21, 1e22, 3e22,
    1.2345678901234567e19, 123456789012345680000, 1e-4, 1e-5, 1e-7, 0.000123, 2.5e-10, 1 / 3.0,
    .pi, -.pi, .ulpOfOne, .leastNormalMagnitude, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
    -.greatestFiniteMagnitude, 9007199254740993, 4.35, 0.7, 72.5, 1.1,
  ]

  /// Random doubles: any bit pattern that is finite, and short decimals, as settings hold.
  static func randomDoubles(_ count: Int) -> [Double] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { index in
      if index % 2 == 0 {
        var value: Double
        repeat { value = Double(bitPattern: generator.next()) } while !value.isFinite
        return value
      }
      return Double(Int.random(in: -100_000...100_000, using: &generator)) / 100
    }
  }

  @Test func aDoubleIsWrittenAsJSONEncoderWritesIt() throws {
    let encoder = JSONEncoder()
    for value in Self.doubles + Self.randomDoubles(20_000) {
      let expected = try encoder.encode(value)
      #expect(PlainJSON.text(of: value, as: .double, escapingSlashes: true, endingLine: false)?.data == expected, "\(value)")
      #expect(
        PlainJSON.text(of: value, as: .double, escapingSlashes: false, endingLine: true)?.data == expected + Data("\n".utf8),
        "\(value)"
      )
    }
    // Not finite: the encoder's strategy decides (it throws by default).
    for value in [Double.infinity, -.infinity, .nan] {
      #expect(PlainJSON.text(of: value, as: .double, escapingSlashes: true, endingLine: false) == nil)
    }
  }

  @Test func aDoubleIsReadAsJSONDecoderReadsIt() throws {
    let decoder = JSONDecoder()
    // The encoder's text of each value is read as the value, as the decoder reads it.
    for value in Self.doubles + Self.randomDoubles(20_000) {
      let encoded = try JSONEncoder().encode(value)
      for text in [encoded, encoded + Data("\n".utf8)] {
        let read = PlainJSON.parse(FileContents(text), as: .double)?.value(as: Double.self)
        #expect(read?.bitPattern == value.bitPattern, "\(value)")
        #expect(read == (try? decoder.decode(Double.self, from: text)), "\(value)")
      }
    }
    // Other spellings, and text `Double` reads that JSON forbids or the decoder refuses: left
    // to the decoder, whatever it makes of them.
    let others = [
      "1.0", "1.50", "1E2", "1e2", "1e+2", "100.0", "01", "-01", ".5", "1.", "+1", "-", "", "\n", "1e400",
      "-1e400", "1e-400", "-1e-400", "inf", "-inf", "nan", "NaN", "Infinity", "0x1p3", " 1", "1 ", "1\n\n",
      "1,5", "1_000", "\"1\"", "true", "null", "0.10", "1e-05\n ", "00", "-0.0", "2.50e3",
    ]
    for text in others {
      #expect(PlainJSON.parse(FileContents(Data(text.utf8)), as: .double) == nil, "\(String(reflecting: text))")
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
