import Foundation
import Testing

@testable import SharedStateCommandLine

/// The demo's JSON parser and writer read and write exactly what `JSONDecoder` and `JSONEncoder`
/// (`.sortedKeys`, `.withoutEscapingSlashes`) do through `JSONValue`'s `Codable` conformance,
/// which they replace for speed.
@Suite("Demo JSON")
struct JSONValueTests {
  static let documents = [
    "0", "-0", "1", "-1", "1.0", "1.5", "1e2", "1E+2", "1e-2", "-1.25e3", "12345678901234567890",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "0.1", "1e400", "01", "1.",
    ".5", "-", "+1", "true", "false", "null", "tru", "\"\"", "\"a\"", #""\u00e9\n\t\"\\\/""#,
    #""\ud83d\ude00""#, #""\ud83d""#, "\"é☕️\"", "\"a\u{01}\"", "[]", "{}", #"[1,2,[3,{"a":null}]]"#,
    #"{"b":1,"a":[true,false]}"#, " [ 1 , 2 ] ", "[1,]", #"{"a":1,}"#, #"{"a" 1}"#, "[1 2]", "", " ",
    "1 2", #"{"a":1,"a":2}"#, "\u{FEFF}1", #""\x""#, #"["a",{"x":-0.0}]"#, "1.7976931348623157e308",
    "2.5e-400", "[1e1000]", "\"\t\"", #"{"é":1,"e":2,"B":3,"a10":4,"a9":5,"":6,"😀":7}"#,
    String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    // Integers beyond Int: kept exactly, by the parser and through Codable alike.
    "18446744073709551616", "18446744073709551615", "-9223372036854775809", "[1e20,-3E19]",
    #"{"n":12345678901234567890123456789012345678}"#,
  ]

  @Test func parsingReadsWhatTheDecoderReads() {
    for document in Self.documents {
      let data = Data(document.utf8)
      let decoded = try? JSONDecoder().decode(JSONValue.self, from: data)
      let parsed = try? JSONValue(json: data)
      #expect(parsed == decoded, "\(document.debugDescription)")
    }
  }

  /// 2^64 printed as 1.8446744073709552e+19 before: integers beyond Int print as written.
  @Test func integersBeyondIntPrintAsWritten() throws {
    for text in ["18446744073709551616", "-9223372036854775809", "99999999999999999999999999999999999999999999"] {
      let value = try JSONValue(json: Data(text.utf8))
      #expect(value == .largeInteger(text))
      #expect(value.compactJSON == text)
    }
    #expect(try JSONValue(json: Data("1e20".utf8)).compactJSON == "100000000000000000000")
    #expect(try JSONValue(json: Data("9223372036854775807".utf8)) == .integer(.max))
    // Through Codable (a suite's keys): exact while Decimal holds it.
    let decoded = try JSONDecoder().decode(JSONValue.self, from: Data("[18446744073709551616]".utf8))
    #expect(decoded == .array([.largeInteger("18446744073709551616")]))
    #expect(String(decoding: try JSONEncoder().encode(decoded), as: UTF8.self) == "[18446744073709551616]")
  }

  @Test func writingWritesWhatTheEncoderWrites() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    func expectSame(_ value: JSONValue) throws {
      let encoded = String(decoding: try encoder.encode(value), as: UTF8.self)
      #expect(value.compactJSON == encoded)
    }
    var doubles = [0.1, 1e-7, 1e21, 1e22, 1e15, 1e16, 1e17, 123456789012345678.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, -0.0, 100.0, 1e-5]
    for _ in 0..<2_000 {
      let random = Double(bitPattern: UInt64.random(in: .min ... .max))
      if random.isFinite { doubles.append(random) }
      doubles.append(Double.random(in: -1e6...1e6))
    }
    try expectSame(.array(doubles.map(JSONValue.number)))
    let strings = (0..<0x300).compactMap(Unicode.Scalar.init).map(String.init)
      + ["\u{2028}", "\u{2029}", "\u{FEFF}", "☕️", "😀", "/", "\u{7F}", "e\u{301}"]
    try expectSame(.array(strings.map(JSONValue.string)))
    let keys = ["a", "B", "b", "10", "9", "é", "e", "_", "A1", "a10", "a9", "", "Z", "z", "ä", "aa", "a b", "1", "01", "😀", "ß", "ss"]
    try expectSame(.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.integer(1)) })))
    for document in Self.documents {
      if let value = try? JSONValue(json: Data(document.utf8)) { try expectSame(value) }
    }
  }
}
