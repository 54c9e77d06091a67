import Foundation
@testable import SharedState
import SystemPackage
import Testing

/// The mapping between key names and file names: reversible, and always one file name inside
/// the suite directory.
@Suite("App storage: key names and file names")
struct AppStorageFileNameTests {
  @Test(arguments: [
    ("", "%.json"),
    (".", "%2E.json"),
    ("..", "%2E..json"),
    ("a/b", "a%2Fb.json"),
    ("../../x", "%2E.%2F..%2Fx.json"),
    ("\0", "%00.json"),
    ("line\nbreak", "line%0Abreak.json"),
    ("100%", "100%25.json"),
    (".hidden", "%2Ehidden.json"),
    ("a.b", "a.b.json"),
    ("launchCount", "launchCount.json"),
    ("café ☕️ 東京", "café ☕️ 東京.json"),
    ("x.sharedstate-lock", "x.sharedstate-lock.json"),
  ])
  func documentedExamples(key: String, fileName: String) throws {
    #expect(try AppStorageSuite.fileName(forKey: key) == fileName)
    #expect(AppStorageFileName.key(forFileName: Array(fileName.utf8))?.utf8.elementsEqual(key.utf8) == true)
  }

  @Test func canonicallyEquivalentNamesAreDifferentKeys() throws {
    // Swift's String equality treats these as equal; their files, and so their keys, differ.
    let composed = "\u{E9}"
    let decomposed = "e\u{301}"
    let composedName = try AppStorageSuite.fileName(forKey: composed)
    let decomposedName = try AppStorageSuite.fileName(forKey: decomposed)
    #expect(!composedName.utf8.elementsEqual(decomposedName.utf8))
    let suite = AppStorageSuite.inMemory()
    #expect(
      AppStorageKey<Int>.appStorage(composed, store: suite).id
        != AppStorageKey<Int>.appStorage(decomposed, store: suite).id
    )
  }

  @Test func randomNamesRoundTripAndStayInsideTheDirectory() async throws {
    // About ten seconds of work in a debug build: on a thread of its own, not on one of the
    // cooperative pool's two threads, which every other test of the run needs meanwhile.
    let (stored, failures) = try await offThePool { Self.roundTripRandomNames() }
    #expect(failures == [])
    #expect(stored > 2_500, "most random names are storable")
  }

  /// Maps 5 000 random key names to file names and back: how many could be stored, and what
  /// went wrong with the others.
  private static func roundTripRandomNames() -> (stored: Int, failures: [String]) {
    var random = SplitMix64(seed: 0x5EED)
    let directory = FilePath("/suite/dir")
    var stored = 0
    // Failures are collected and checked once: an expectation per name would be slow.
    var failures: [String] = []
    for index in 0..<5_000 {
      let key = random.keyName()
      guard let fileName = try? AppStorageFileName.fileName(forKey: key) else {
        // Only a name that is too long once encoded (at most three bytes per byte) may fail.
        if key.utf8.count * 3 <= AppStorageFileName.maximumStemLength {
          failures.append("\(key.debugDescription) was refused")
        }
        continue
      }
      stored += 1
      let bytes = Array(fileName.utf8)
      let problems = [
        bytes.contains(UInt8(ascii: "/")) ? "has a slash" : nil,
        bytes.contains(0) ? "has a NUL" : nil,
        // Never hidden, so never '.' or '..' or a companion file.
        bytes.first == UInt8(ascii: ".") ? "starts with a dot" : nil,
        fileName.hasSuffix(".json") ? nil : "lacks .json",
        bytes.count + 21 <= 255 ? nil : "leaves no room for the companion files' names",
        // FilePath is slow in debug builds: check the paths of every tenth name.
        index % 10 != 0 || directory.appending(fileName).removingLastComponent() == directory
          ? nil : "is not one component",
        index % 10 != 0 || directory.appending(fileName).lexicallyNormalized().removingLastComponent() == directory
          ? nil : "escapes when normalised",
        AppStorageFileName.key(forFileName: bytes)?.utf8.elementsEqual(key.utf8) == true
          ? nil : "does not map back",
      ].compactMap { $0 }
      if !problems.isEmpty {
        failures.append("\(key.debugDescription) → \(fileName.debugDescription): \(problems)")
      }
    }
    return (stored, failures)
  }

  @Test func randomNamesAsRealFilesListBackExactly() throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    var random = SplitMix64(seed: 42)
    var keys: [String] = []
    while keys.count < 300 {
      let key = random.keyName(maximumLength: 20)
      guard !keys.contains(where: { $0.utf8.elementsEqual(key.utf8) }) else { continue }
      keys.append(key)
      try suite.write(keys.count, forKey: key)
    }
    #expect(try directory.contents().allSatisfy { !$0.contains("/") })
    let listed = try suite.keys()
    #expect(listed.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
      == keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
    for (index, key) in keys.enumerated() {
      #expect(try suite.value(forKey: key, as: Int.self) == index + 1)
    }
  }

  @Test func tenThousandCharactersFailWithAClearError() throws {
    let key = String(repeating: "k", count: 10_000)
    #expect(throws: AppStorageError(.keyNameTooLong, name: key)) {
      try AppStorageSuite.fileName(forKey: key)
    }
    let error = AppStorageError(.keyNameTooLong, name: key)
    #expect(error.description.contains("too long"))
    #expect(error.description.count < 300, "the message does not repeat the whole key")
  }

  @Test func longestStorableKey() throws {
    let longest = String(repeating: "k", count: AppStorageFileName.maximumStemLength)
    let fileName = try AppStorageSuite.fileName(forKey: longest)
    #expect(fileName.utf8.count == 255 - 21)
    #expect(throws: AppStorageError.self) { try AppStorageSuite.fileName(forKey: longest + "k") }
    // Escapes count three bytes each.
    let slashes = String(repeating: "/", count: AppStorageFileName.maximumStemLength / 3 + 1)
    #expect(throws: AppStorageError.self) { try AppStorageSuite.fileName(forKey: slashes) }

    // Companion files of the longest name can be created.
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    try suite.write(1, forKey: longest)
    #expect(try suite.value(forKey: longest, as: Int.self) == 1)
  }

  @Test(arguments: [
    "%2e.json",  // lower-case escape
    "%41.json",  // an escape that is not needed
    "a%2.json",  // a cut escape
    "a%zz.json",
    ".x.json",  // hidden
    ".x.json.sharedstate-lock",
    ".x.json.sharedstate-scratch",
    "x.json~",
    "x",
    ".json",
    "%",
  ])
  func namesThatAreNoKeysFile(name: String) {
    #expect(AppStorageFileName.key(forFileName: Array(name.utf8)) == nil)
  }

  @Test func fileNamesThatAreNotUTF8AreNoKeysFiles() {
    #expect(AppStorageFileName.key(forFileName: [0xFF, 0xFE] + Array(".json".utf8)) == nil)
    #expect(AppStorageFileName.key(forFileName: [0xC3] + Array(".json".utf8)) == nil)
  }
}

/// A small, seeded pseudo-random generator, so that a failure can be reproduced.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A key name drawn from the characters most likely to break a file name mapping.
  mutating func keyName(maximumLength: Int = 120) -> String {
    let pieces: [String] = [
      "/", ".", "..", "%", "%2F", "\0", "\n", "\u{7F}", "\u{1B}", " ", "~", "\\", "*", "?", "\"",
      "a", "Z", "0", "-", "_", ".json", ".sharedstate-lock",
      "é", "e\u{301}", "☕️", "東", "👩‍👩‍👧", "\u{FFFD}", "\u{FEFF}", "\u{200D}", "\u{202E}",
      "\u{10FFFF}", "\u{E000}", "\u{85}", "\u{2028}",
    ]
    let count = Int.random(in: 0...maximumLength / 2, using: &self)
    var name = ""
    for _ in 0..<count {
      name += pieces.randomElement(using: &self)!
    }
    return name
  }
}
