import Testing

@testable import SharedDemo

/// The terminal layer's pure parts: decoding key presses and turning frames into output.
@Suite struct DemoTerminalTests {
  @Test func bytesBecomeKeys() {
    var decoder = KeyDecoder()
    #expect(decoder.decode(Array("+q ".utf8)) == [.character("+"), .character("q"), .character(" ")])
    #expect(decoder.decode([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42, 0x1B, 0x4F, 0x43]) == [.up, .down, .right])
    #expect(decoder.decode([0x0D, 0x7F, 0x08, 0x03, 0x09, 0x01]) == [.enter, .backspace, .backspace, .interrupt, .tab, .unknown])
    #expect(decoder.decode([0x1B]) == [.escape])
    #expect(decoder.decode([0x1B, 0x1B]) == [.escape, .escape])
    // Delete (ESC [ 3 ~) is one unknown key, not Escape and three characters.
    #expect(decoder.decode([0x1B, 0x5B, 0x33, 0x7E, 0x61]) == [.unknown, .character("a")])
  }

  @Test func aCharacterSplitBetweenReadsArrivesWhole() {
    var decoder = KeyDecoder()
    let bytes = Array("é€".utf8)
    #expect(decoder.decode(bytes[..<1]) == [])
    #expect(decoder.decode(bytes[1..<3]) == [.character("é")])
    #expect(decoder.decode(bytes[3...]) == [.character("€")])
    #expect(decoder.decode([0xFF]) == [.unknown])
  }

  @Test func framesRedrawOnlyWhatChanged() {
    var writer = FrameWriter()
    let first = writer.output(for: ["Counter: 1", "b"])
    #expect(first == "\u{1B}[H\u{1B}[2J\u{1B}[1;1HCounter: 1\u{1B}[2;1Hb")
    #expect(writer.output(for: ["Counter: 1", "b"]) == nil, "an unchanged frame writes nothing")
    #expect(writer.output(for: ["Counter: 2", "b"]) == "\u{1B}[1;1H\u{1B}[2KCounter: 2")
    #expect(writer.output(for: ["Counter: 2"]) == "\u{1B}[2;1H\u{1B}[2K", "a removed line is erased")
    writer.invalidate()
    #expect(writer.output(for: ["Counter: 2"]) == "\u{1B}[H\u{1B}[2J\u{1B}[1;1HCounter: 2")
  }
}
