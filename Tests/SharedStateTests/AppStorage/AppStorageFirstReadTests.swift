import Foundation
import SharedState
import Testing

/// The first read of an app-storage key that has no file stores the key's default, only by
/// creating the file, never in place of one.
@Suite("App storage: the default stored on first read")
struct AppStorageFirstReadTests {
  let directory: TemporaryDirectory
  let suite: AppStorageSuite

  init() throws {
    directory = try TemporaryDirectory()
    suite = AppStorageSuite(directory: directory.url)
  }

  @Test func theFirstReadStoresTheDefaultForEveryoneToRead() throws {
    @Shared(.appStorage("int", store: suite)) var int = 42
    @SharedReader(.appStorage("name", store: suite)) var name = "Blob"
    #expect(int == 42)
    #expect(name == "Blob")
    #expect(try directory.contents(ofKey: "int") == "42\n")
    #expect(suite.integer(forKey: "int") == 42)
    #expect(suite.string(forKey: "name") == "Blob")
    #expect(try suite.keys().sorted() == ["int", "name"])
  }

  /// One file per stored default, and no other (a program may open thousands of keys in a new
  /// suite, each a new inode): the lock file is made by the first write that takes the lock.
  @Test func theFirstReadCreatesTheKeysFileAlone() throws {
    @Shared(.appStorage("int", store: suite)) var int = 42
    #expect(try directory.contents() == ["int.json"])
    #expect(try directory.contents(ofKey: "int") == "42\n")
    $int.withLock { $0 += 1 }
    #expect(try directory.contents(ofKey: "int") == "43\n")
    #expect(try directory.contents().contains(".int.json.sharedstate-lock"))
  }

  /// Where a lock file is (the key was written, then removed), the default is stored under the
  /// lock, as any write: the coordination page's sequence grows.
  @Test func aDefaultStoredWhereALockFileIsTakesTheLock() throws {
    try suite.write(7, forKey: "int")
    try suite.removeValue(forKey: "int")
    let lockFile = directory.path(".int.json.sharedstate-lock")
    let sequence = { () throws -> UInt64 in
      let bytes = try Data(contentsOf: URL(fileURLWithPath: lockFile)).prefix(8)
      return bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
    let before = try sequence()
    @Shared(.appStorage("int", store: suite)) var int = 42
    #expect(int == 42)
    #expect(try directory.contents(ofKey: "int") == "42\n")
    #expect(try sequence() == before + 2)
  }

  @Test func aStoredValueWinsOverTheDefaultAndIsNotRewritten() throws {
    try suite.write(7, forKey: "int")
    let before = try FileManager.default.attributesOfItem(atPath: directory.path("int.json"))[.systemFileNumber]
    @Shared(.appStorage("int", store: suite)) var int = 42
    #expect(int == 7)
    #expect(try directory.contents(ofKey: "int") == "7\n")
    let after = try FileManager.default.attributesOfItem(atPath: directory.path("int.json"))[.systemFileNumber]
    #expect(before as? UInt64 == after as? UInt64)
  }

  @Test func anUndecodableOrEmptyFileIsNotOverwritten() throws {
    try "not a number".write(toFile: directory.path("bad.json"), atomically: true, encoding: .utf8)
    try Data().write(to: URL(fileURLWithPath: directory.path("empty.json")))
    // A load error, not an issue (Swift Testing would fail this test for one).
    let bad = Shared(wrappedValue: 42, .appStorage("bad", store: suite))
    @Shared(.appStorage("empty", store: suite)) var empty = 42
    #expect(bad.loadError is DecodingError)
    #expect(bad.wrappedValue == 42)
    #expect(empty == 42)
    #expect(try directory.contents(ofKey: "bad") == "not a number")
    #expect(try directory.contents(ofKey: "empty") == "")
  }

  @Test func aDefaultOfNoValueIsNotStored() throws {
    @Shared(.appStorage("none", store: suite)) var none: Int? = nil
    @Shared(.appStorage("some", store: suite)) var some: Int? = 3
    #expect(none == nil)
    #expect(some == 3)
    #expect(try directory.contents(ofKey: "none") == nil)
    #expect(try directory.contents(ofKey: "some") == "3\n")
  }

  @Test func aDefaultThatEncodesAsJSONNullIsNotStored() throws {
    @Shared(.appStorage("nothing", store: suite)) var nothing = Nothing()
    @Shared(.appStorage("word", store: suite)) var word = "null"
    #expect(nothing == Nothing())
    #expect(try directory.contents(ofKey: "nothing") == nil)
    #expect(try directory.contents(ofKey: "word") == "\"null\"\n")
  }

  /// A value that encodes as JSON's `null` (with the line end app storage adds), as a custom
  /// `Codable` type can.
  private struct Nothing: Codable, Equatable {
    init() {}

    init(from decoder: any Decoder) throws {
      guard try decoder.singleValueContainer().decodeNil() else {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not null"))
      }
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    }
  }

  @Test func aLoadAskedForByTheProgramStoresNothing() async throws {
    @Shared(.appStorage("int", store: suite)) var int = 42
    try FileManager.default.removeItem(atPath: directory.path("int.json"))
    try await $int.load()
    #expect(int == 42)
    #expect(try directory.contents(ofKey: "int") == nil)
  }

  @Test func anotherProcessWatchingSeesTheStoredDefault() async throws {
    let watcher = try DemoProcess("watch", "--suite", directory.url.path, "--key", "int", "--changes", "1")
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    @Shared(.appStorage("int", store: suite)) var int = 42
    #expect(try await watcher.nextLine().hasSuffix(" 42"))
    #expect(try await watcher.waitForExit() == 0)
  }

  @Test func aDeletedKeyStaysDeleted() async throws {
    @Shared(.appStorage("int", store: suite)) var int = 42
    $int.withLock { $0 = 7 }
    // A file key would bring its empty file back; a key of a suite is removed for good.
    let watcher = try DemoProcess("watch", "--suite", directory.url.path, "--key", "int", "--changes", "1")
    #expect(try await watcher.nextLine().hasSuffix(" 7"))
    try FileManager.default.removeItem(atPath: directory.path("int.json"))
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await watcher.waitForExit() == 0)
    try await withTimeout(seconds: 20) { [$int] in
      while $int.wrappedValue != 42 { try await Task.sleep(for: .milliseconds(1)) }
    }
    #expect(try directory.contents(ofKey: "int") == nil)
  }
}

/// Processes with different defaults reading a key nobody has stored yet, at the same moment.
@Suite("App storage: first reads across processes")
struct AppStorageFirstReadProcessTests {
  @Test func twoProcessesWithDifferentDefaultsAlwaysReadTheSameStoredValue() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    var outcomes: [String: Int] = [:]
    for round in 0..<50 {
      let key = "race-\(round)"
      // Far enough ahead that both processes are running and waiting when it comes.
      let start = String(UInt64(Date().timeIntervalSince1970 * 1e9) + 400_000_000)
      let processes = try [1, 2].map { value in
        try DemoProcess(
          "first-read", "--suite", directory.url.path, "--key", key, "--default", "\(value)",
          "--start-at", start
        )
      }
      var read: [String] = []
      for process in processes {
        read.append(contentsOf: try await process.allOutput(seconds: 60))
        #expect(try await process.waitForExit() == 0)
      }
      #expect(read.count == 2, "round \(round): \(read)")
      #expect(Swift.Set(read).count == 1, "round \(round): the processes read \(read)")
      let stored = try suite.value(forKey: key, as: Int.self)
      #expect(stored.map(String.init) == read.first, "round \(round): stored \(String(describing: stored)), read \(read)")
      outcomes[read.first ?? "none", default: 0] += 1
    }
    // Which default wins is up to the scheduler; the run says how it went.
    print("first-read races won: \(outcomes)")
  }
}
