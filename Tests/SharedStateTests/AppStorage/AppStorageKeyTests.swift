import Dependencies
import DependenciesTestSupport
import Foundation
import IssueReporting
@testable import SharedState
import Testing

enum Level: Int, Sendable {
  case low = 1, high = 2
}

enum Theme: String, Codable, Sendable {
  case light, dark
}

struct Profile: Codable, Equatable, Sendable {
  var name: String
  var tags: [String]
}

// The Core tests already name in-memory keys `launchCount` and `hasShownFirstLaunchOnboarding`
// in this module, hence the prefix.
extension SharedReaderKey where Self == AppStorageKey<Int>.Default {
  static var appLaunchCount: Self { Self[.appStorage("launchCount"), default: 0] }
}

extension SharedReaderKey where Self == AppStorageKey<Bool>.Default {
  static var appHasShownFirstLaunchOnboarding: Self {
    Self[.appStorage("hasShownFirstLaunchOnboarding"), default: false]
  }
}

extension SharedReaderKey where Self == AppStorageKey<Double>.Default {
  static var installationTime: Self {
    Self[.appStorage("installationTime"), default: Date().timeIntervalSince1970]
  }
}

extension SharedReaderKey where Self == AppStorageKey<Date>.Default {
  static var installationDate: Self { Self[.appStorage("installationDate"), default: Date()] }
}

/// `.appStorage` keys in one process, on the disk.
@Suite("App storage key")
struct AppStorageKeyTests {
  let directory: TemporaryDirectory
  let suite: AppStorageSuite

  init() throws {
    directory = try TemporaryDirectory()
    suite = AppStorageSuite(directory: directory.url)
  }

  @Test func everyValueTypeIsStoredAsReadableJSONAndReadsBack() throws {
    @Shared(.appStorage("bool", store: suite)) var bool = false
    @Shared(.appStorage("int", store: suite)) var int = 0
    @Shared(.appStorage("double", store: suite)) var double = 0.0
    @Shared(.appStorage("string", store: suite)) var string = ""
    @Shared(.appStorage("strings", store: suite)) var strings: [String] = []
    @Shared(.appStorage("url", store: suite)) var url = URL(string: "https://example.com")!
    @Shared(.appStorage("data", store: suite)) var data = Data()
    @Shared(.appStorage("date", store: suite)) var date = Date(timeIntervalSince1970: 0)
    @Shared(.appStorage("level", store: suite)) var level = Level.low
    @Shared(.appStorage("theme", store: suite)) var theme = Theme.light
    @Shared(.appStorage("profile", store: suite)) var profile = Profile(name: "", tags: [])

    $bool.withLock { $0 = true }
    $int.withLock { $0 = 42 }
    $double.withLock { $0 = 2.5 }
    $string.withLock { $0 = "héllo \"q\"" }
    $strings.withLock { $0 = ["a", "b/c"] }
    $url.withLock { $0 = URL(string: "https://example.com/a?b=c")! }
    $data.withLock { $0 = Data([1, 2, 3]) }
    $date.withLock { $0 = Date(timeIntervalSince1970: 1_700_000_000.5) }
    $level.withLock { $0 = .high }
    $theme.withLock { $0 = .dark }
    $profile.withLock { $0 = Profile(name: "Blob", tags: ["x"]) }

    #expect(try directory.contents(ofKey: "bool") == "true\n")
    #expect(try directory.contents(ofKey: "int") == "42\n")
    #expect(try directory.contents(ofKey: "double") == "2.5\n")
    let stringContents = try directory.contents(ofKey: "string")
    #expect(stringContents == #""héllo \"q\"""# + "\n")
    #expect(try directory.contents(ofKey: "strings") == #"["a","b/c"]"# + "\n")
    #expect(try directory.contents(ofKey: "url") == #""https://example.com/a?b=c""# + "\n")
    #expect(try directory.contents(ofKey: "data") == #""AQID""# + "\n")
    #expect(try directory.contents(ofKey: "date") == "1700000000.5\n")
    #expect(try directory.contents(ofKey: "level") == "2\n")
    #expect(try directory.contents(ofKey: "theme") == #""dark""# + "\n")
    #expect(try directory.contents(ofKey: "profile") == #"{"name":"Blob","tags":["x"]}"# + "\n")

    // What was stored reads back as the same values, through the suite's own reading.
    #expect(try suite.value(forKey: "bool", as: Bool.self) == true)
    #expect(try suite.value(forKey: "int", as: Int.self) == 42)
    #expect(try suite.value(forKey: "double", as: Double.self) == 2.5)
    #expect(try suite.value(forKey: "string", as: String.self) == "héllo \"q\"")
    #expect(try suite.value(forKey: "strings", as: [String].self) == ["a", "b/c"])
    #expect(try suite.value(forKey: "url", as: URL.self) == URL(string: "https://example.com/a?b=c"))
    #expect(try suite.value(forKey: "data", as: Data.self) == Data([1, 2, 3]))
    #expect(try suite.value(forKey: "date", as: Date.self) == Date(timeIntervalSince1970: 1_700_000_000.5))
    #expect(try suite.value(forKey: "level", as: Level.self) == .high)
    #expect(try suite.value(forKey: "theme", as: Theme.self) == .dark)
    #expect(try suite.value(forKey: "profile", as: Profile.self) == Profile(name: "Blob", tags: ["x"]))
  }

  @Test func valuesWrittenByHandLoad() throws {
    try "7\n".write(toFile: directory.path("count.json"), atomically: true, encoding: .utf8)
    try #""2024-01-31T12:00:00Z""#.write(toFile: directory.path("when.json"), atomically: true, encoding: .utf8)
    try "1".write(toFile: directory.path("level.json"), atomically: true, encoding: .utf8)
    @Shared(.appStorage("count", store: suite)) var count = 0
    @Shared(.appStorage("when", store: suite)) var when = Date(timeIntervalSince1970: 0)
    @Shared(.appStorage("level", store: suite)) var level = Level.high
    #expect(count == 7)
    #expect(when == Date(timeIntervalSince1970: 1_706_702_400))
    #expect(level == .low)
  }

  @Test func integersAreWrittenAndReadAsTheJSONCoderDoes() throws {
    let integers = AppStorageFormat<Int>.json
    // An array of one goes through JSONEncoder and JSONDecoder, never the integers' own path.
    let coded = AppStorageFormat<[Int]>.json
    for value in [0, 7, -1, 42, Int.max, Int.min] {
      let written = try #require(try integers.encode(value))
      let throughEncoder = try #require(try coded.encode([value]))
      #expect(written.data == Data(throughEncoder.data.dropFirst().dropLast(2)) + Data("\n".utf8))
      #expect(try integers.decode(written) == value)
    }
    // What the JSON decoder reads (or refuses) reads (or is refused) the same way.
    for text in ["5", " 5 \n", "5.0", "1e3", "-0", "007", "+5", "--5", "-", "", "\n", "99999999999999999999", "five"] {
      let data = Data(text.utf8)
      let throughDecoder = (try? coded.decode(FileContents(Data("[".utf8) + data + Data("]".utf8))))?.first
      #expect((try? integers.decode(FileContents(data))) == throughDecoder, "\(String(reflecting: text))")
    }
  }

  @Test func optionalsStoreValuesAndNilRemovesTheFile() throws {
    @Shared(.appStorage("int", store: suite)) var int: Int?
    @Shared(.appStorage("level", store: suite)) var level: Level?
    @Shared(.appStorage("theme", store: suite)) var theme: Theme?
    @Shared(.appStorage("date", store: suite)) var date: Date?
    #expect(int == nil && level == nil && theme == nil && date == nil)

    $int.withLock { $0 = 5 }
    $level.withLock { $0 = .low }
    $theme.withLock { $0 = .light }
    $date.withLock { $0 = Date(timeIntervalSince1970: 10) }
    #expect(try directory.contents(ofKey: "int") == "5\n")
    #expect(try directory.contents(ofKey: "level") == "1\n")
    #expect(try directory.contents(ofKey: "theme") == #""light""# + "\n")
    #expect(try directory.contents(ofKey: "date") == "10\n")
    #expect(try suite.keys() == ["date", "int", "level", "theme"])

    $int.withLock { $0 = nil }
    $level.withLock { $0 = nil }
    $theme.withLock { $0 = nil }
    $date.withLock { $0 = nil }
    #expect(try directory.contents(ofKey: "int") == nil)
    #expect(try directory.contents(ofKey: "level") == nil)
    #expect(try directory.contents(ofKey: "theme") == nil)
    #expect(try directory.contents(ofKey: "date") == nil)
    #expect(try suite.keys() == [])
    #expect($int.saveError == nil)

    // Removing what is already gone is no error.
    $int.withLock { $0 = 1 }
    try suite.removeValue(forKey: "int")
    try suite.removeValue(forKey: "int")
    #expect(try directory.contents(ofKey: "int") == nil)
  }

  @Test func typeSafeKeysWithDefaultsUseTheDefaultSuite() throws {
    @Dependency(\.defaultAppStorage) var defaultSuite
    @Shared(.appLaunchCount) var launchCount
    @Shared(.appHasShownFirstLaunchOnboarding) var hasShownFirstLaunchOnboarding
    @Shared(.installationTime) var installationTime
    @Shared(.installationDate) var installationDate
    #expect(launchCount == 0)
    #expect(hasShownFirstLaunchOnboarding == false)
    #expect(abs(installationTime - Date().timeIntervalSince1970) < 60)

    $launchCount.withLock { $0 += 1 }
    $hasShownFirstLaunchOnboarding.withLock { $0 = true }
    $installationTime.withLock { $0 = 1_234.5 }
    $installationDate.withLock { $0 = Date(timeIntervalSince1970: 1_234.5) }
    #expect(try defaultSuite.value(forKey: "launchCount", as: Int.self) == 1)
    #expect(try defaultSuite.value(forKey: "hasShownFirstLaunchOnboarding", as: Bool.self) == true)
    #expect(try defaultSuite.value(forKey: "installationTime", as: Double.self) == 1_234.5)
    #expect(try defaultSuite.value(forKey: "installationDate", as: Date.self) == Date(timeIntervalSince1970: 1_234.5))

    // The same key spelled out is the same state.
    @Shared(.appStorage("launchCount")) var sameCount = 99
    #expect(sameCount == 1)
    #expect(FileManager.default.fileExists(atPath: defaultSuite.directory.appendingPathComponent("launchCount.json").path))
  }

  @Test func eachTestGetsAFreshTemporarySuite() throws {
    @Dependency(\.defaultAppStorage) var defaultSuite
    #expect(defaultSuite.directory.path.hasPrefix(FileManager.default.temporaryDirectory.path))
    // The test above wrote launchCount; whichever order they run in, this suite has none.
    #expect(try defaultSuite.keys() == [])
    @Shared(.appLaunchCount) var launchCount
    #expect(launchCount == 0)
    let other = withDependencies { $0.defaultAppStorage = .temporary() } operation: {
      AppStorageKey<Int>.appStorage("launchCount").suite
    }
    #expect(other != defaultSuite)
  }

  @Test func temporarySuitesAreRemovedWithTheirLastUse() throws {
    var path: String?
    do {
      let temporary = AppStorageSuite.temporary()
      path = temporary.directory.path
      try temporary.write(1, forKey: "a")
      #expect(FileManager.default.fileExists(atPath: path!))
    }
    #expect(!FileManager.default.fileExists(atPath: path!))
  }

  @Test func sameNameInTwoSuitesIsTwoStates() throws {
    let otherDirectory = try TemporaryDirectory()
    let other = AppStorageSuite(directory: otherDirectory.url)
    @Shared(.appStorage("count", store: suite)) var here = 0
    @Shared(.appStorage("count", store: other)) var there = 0
    $here.withLock { $0 = 1 }
    $there.withLock { $0 = 2 }
    #expect(here == 1)
    #expect(there == 2)
    #expect(AppStorageKey<Int>.appStorage("count", store: suite).id != AppStorageKey<Int>.appStorage("count", store: other).id)
    // The same directory, however it is spelled, is the same suite.
    let respelled = AppStorageSuite(directory: URL(fileURLWithPath: directory.url.path + "/./sub/.."))
    #expect(respelled == suite)
    @Shared(.appStorage("count", store: respelled)) var again = 0
    #expect(again == 1)
  }

  @Test func undecodableFileKeepsTheValueAndSetsLoadError() async throws {
    try "\"not a number\"\n".write(toFile: directory.path("count.json"), atomically: true, encoding: .utf8)
    // A load error, not an issue (Swift Testing would fail this test for one).
    let shared = Shared(wrappedValue: 7, .appStorage("count", store: suite))
    #expect(shared.wrappedValue == 7)
    let path = directory.path("count.json")
    let error = try #require(shared.loadError as? DecodingError)
    guard case let .typeMismatch(type, context) = error else {
      Issue.record("expected typeMismatch, got \(error)")
      return
    }
    #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
    #expect(context.debugDescription.hasPrefix("\(path): "), "it names the file")
    #expect(try directory.contents(ofKey: "count") == "\"not a number\"\n", "the file is left alone")
    #expect {
      try suite.value(forKey: "count", as: Int.self)
    } throws: { error in
      guard case let .typeMismatch(_, context)? = error as? DecodingError else { return false }
      return context.debugDescription.hasPrefix("\(path): ")
    }

    shared.withLock { $0 += 1 }
    #expect(try directory.contents(ofKey: "count") == "8\n")
    #expect(shared.loadError == nil)
  }

  @Test func aValueOfAnotherTypeIsUndecodableNotADefault() throws {
    try suite.write("text", forKey: "mixed")
    let shared = Shared(wrappedValue: true, .appStorage("mixed", store: suite))
    #expect(shared.wrappedValue == true)
    #expect(shared.loadError is DecodingError)
    try suite.write(5, forKey: "level")
    #expect(throws: DecodingError.self) { try suite.value(forKey: "level", as: Level.self) }
  }

  @Test func keyThatCannotBeStoredFailsClearlyAndTouchesNothing() throws {
    let name = String(repeating: "x", count: 10_000)
    @Shared(.appStorage(name, store: suite)) var value = 1
    #expect(($value.loadError as? AppStorageError)?.reason == .keyNameTooLong)
    $value.withLock { $0 = 2 }
    #expect(value == 1, "a write that could not be committed is neither kept nor announced")
    #expect(($value.saveError as? AppStorageError)?.reason == .keyNameTooLong)
    #expect(try directory.contents() == [])
    #expect(throws: AppStorageError.self) { try suite.write(1, forKey: name) }
    #expect(throws: AppStorageError.self) { try suite.value(forKey: name, as: Int.self) }
  }

  @Test func awkwardNamesStayInsideTheSuite() throws {
    let names = ["", ".", "..", "a/b", "../../x", "\0", "..\0/..", ".sharedstate-lock"]
    for (index, name) in names.enumerated() {
      let shared = Shared(wrappedValue: 0, .appStorage(name, store: suite))
      shared.withLock { $0 = index + 1 }
      #expect(shared.saveError == nil, "\(name.debugDescription)")
    }
    let parent = directory.url.deletingLastPathComponent().path
    #expect(!FileManager.default.fileExists(atPath: parent + "/x.json"))
    #expect(try suite.keys().sorted() == names.sorted())
    for (index, name) in names.enumerated() {
      #expect(try suite.value(forKey: name, as: Int.self) == index + 1)
    }
  }

  @Test func filesAndDirectoriesAreOwnerOnly() throws {
    let nested = directory.url.appendingPathComponent("a/b/suite")
    let private_ = AppStorageSuite(directory: nested)
    @Shared(.appStorage("secret", store: private_)) var secret = ""
    $secret.withLock { $0 = "s" }
    let manager = FileManager.default
    func permissions(_ path: String) throws -> Int {
      (try manager.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
    #expect(try permissions(nested.path) == 0o700)
    #expect(try permissions(directory.path("a")) == 0o700)
    #expect(try permissions(nested.appendingPathComponent("secret.json").path) == 0o600)
    #expect(try permissions(nested.appendingPathComponent(".secret.json.sharedstate-lock").path) == 0o600)

    // A caller may ask for other permissions.
    let shared = AppStorageSuite(
      directory: directory.url.appendingPathComponent("shared"),
      filePermissions: [.ownerReadWrite, .groupRead],
      directoryPermissions: [.ownerReadWriteExecute, .groupReadExecute]
    )
    try shared.write(1, forKey: "k")
    #expect(try permissions(directory.path("shared")) == 0o750)
    #expect(try permissions(directory.path("shared/k.json")) == 0o640)
  }

  @Test func imperativeWritesReachSharedStateInThisProcess() async throws {
    @Shared(.appStorage("count", store: suite)) var count = 0
    let values = AsyncQueue($count.values)
    #expect(try await values.next() == 0)
    try suite.write(3, forKey: "count")
    #expect(try await values.next() == 3)
    try suite.removeValue(forKey: "count")
    #expect(try await values.next() == 0, "no file is the default again")
  }

  @Test func openingKeysMapsNoPageOfTheirs() async throws {
    // Keys written before, by another process: each has its lock file, which is the
    // coordination page a writer or a watcher of a change maps. Opening the keys must not map
    // them: a program may open thousands.
    let names = (0..<5).map { "mapped-\($0)" }
    for (index, name) in names.enumerated() {
      _ = try await DemoProcess("set", "--suite", directory.url.path, "--key", name, "\(index)").allOutput()
    }
    let keys = names.map { Shared(wrappedValue: -1, .appStorage($0, store: suite)) }
    #expect(keys.map(\.wrappedValue) == [0, 1, 2, 3, 4])
    // Read to the end: /proc files say they are empty, and a single read stops at 4 KiB.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
    let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    let mapped = names.filter { maps.contains(directory.path(".\($0).json\(CompanionPaths.lockSuffix)")) }
    #expect(mapped.isEmpty, "pages mapped at open: \(mapped)")
  }

  @Test func inMemorySuitePersistsNothingOnDisk() throws {
    let fileSystem = InMemoryFileSystem()
    let memory = AppStorageSuite.inMemory(fileSystem)
    @Shared(.appStorage("count", store: memory)) var count = 0
    $count.withLock { $0 = 4 }
    #expect(try memory.value(forKey: "count", as: Int.self) == 4)
    #expect(try memory.keys() == ["count"])
    #expect(fileSystem.paths == ["/app-storage/count.json"])
    #expect(AppStorageSuite.inMemory() != memory)
    try memory.removeValue(forKey: "count")
    #expect(try memory.keys() == [])
  }

  @Test func previewsUseAnInMemorySuite() {
    let suite = withDependencies { $0.context = .preview } operation: {
      @Dependency(\.defaultAppStorage) var suite
      return suite
    }
    #expect(suite.description.hasSuffix("(in memory)"))
  }
}
