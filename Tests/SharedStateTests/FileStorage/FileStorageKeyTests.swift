import Dependencies
import DependenciesTestSupport
import Foundation
import IdentifiedCollections
import IssueReporting
@testable import SharedState
import Synchronization
import Testing

/// File storage in one process, on the real file system.
@Suite("File storage key", .dependency(\.defaultFileStorage, .fileSystem))
struct FileStorageKeyTests {
  @Test func missingFileMeansTheDefaultAndLeavesOnlyAnEmptyFile() throws {
    let directory = try TemporaryDirectory()
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("value.json")))) var value = 5
    #expect(value == 5)
    #expect(try directory.contents().filter { !$0.hasPrefix(".") } == ["value.json"])
    #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path("value.json"))) == Data(), "the default is not written")
  }

  @Test func firstWriteCreatesParentDirectoriesAndAJSONFile() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("one/two/value.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var value = [1, 2]
    $value.withLock { $0.append(3) }
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "[1,2,3]")
  }

  @Test func valueSurvivesInTheFile() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("todos.json"))
    struct Todo: Codable, Equatable, Identifiable, Sendable {
      let id: Int
      var title: String
    }
    do {
      @Shared(.fileStorage(url)) var todos: IdentifiedArrayOf<Todo> = []
      $todos.withLock { $0.append(Todo(id: 1, title: "Milk")) }
    }
    // A new reference (the first is gone) loads what the file holds.
    @Shared(.fileStorage(url)) var todos: IdentifiedArrayOf<Todo> = []
    #expect(todos == [Todo(id: 1, title: "Milk")])
  }

  @Test func equivalentPathsAreOneState() throws {
    let directory = try TemporaryDirectory()
    let base = directory.url.path
    @Shared(.fileStorage(URL(fileURLWithPath: "\(base)/a/b.json"))) var plain = 0
    @Shared(.fileStorage(URL(fileURLWithPath: "\(base)/a//b.json"))) var doubled = 0
    @Shared(.fileStorage(URL(fileURLWithPath: "\(base)/a/./b.json"))) var dotted = 0
    @Shared(.fileStorage(URL(fileURLWithPath: "\(base)/c/../a/b.json"))) var parent = 0
    $plain.withLock { $0 = 9 }
    #expect([doubled, dotted, parent] as [Int] == [9, 9, 9])
    #expect(
      FileStorageKey<Int>.fileStorage(URL(fileURLWithPath: "\(base)/a//./b.json")).id
        == FileStorageKey<Int>.fileStorage(URL(fileURLWithPath: "\(base)/a/b.json")).id
    )
  }

  @Test func undecodableFileKeepsTheLastGoodValueUntilTheProgramWrites() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    try Data("not json".utf8).write(to: URL(fileURLWithPath: file))
    // Bad contents are the state's load error, not an issue: Swift Testing would fail this test
    // for an issue reported.
    let shared = Shared(wrappedValue: 7, .fileStorage(URL(fileURLWithPath: file)))
    #expect(shared.wrappedValue == 7)
    // The decoder's own error, as with swift-sharing, its description naming the file.
    let error = try #require(shared.loadError as? DecodingError)
    guard case let .dataCorrupted(context) = error else {
      Issue.record("expected dataCorrupted, got \(error)")
      return
    }
    #expect(context.debugDescription.hasPrefix("\(file): "))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "not json", "the file is left alone")

    await #expect(throws: DecodingError.self) { try await shared.load() }

    shared.withLock { $0 += 1 }
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "8")
    #expect(shared.loadError == nil, "the program's own good write clears the error")
  }

  @Test func badContentsFromElsewhereHoldTheDecodersOwnError() async throws {
    struct NotANumber: Error, Equatable { let text: String }
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("count.txt"))
    let key = FileStorageKey<Int>.fileStorage(
      url,
      decode: { data in
        let text = String(decoding: data, as: UTF8.self)
        guard let number = Int(text) else { throw NotANumber(text: text) }
        return number
      },
      encode: { Data(String($0).utf8) }
    )
    @Shared(key) var count = 1
    $count.withLock { $0 = 2 }
    // Another program writes what does not decode; the watcher reads it.
    try Data("three".utf8).write(to: url, options: .atomic)
    try await withTimeout(seconds: 20) { [$count] in
      while $count.loadError == nil { try await Task.sleep(for: .milliseconds(1)) }
    }
    #expect($count.loadError as? NotANumber == NotANumber(text: "three"), "the decoder's own error itself")
    #expect(count == 2)
    #expect(try String(contentsOf: url, encoding: .utf8) == "three", "the file is left alone")
  }

  @Test func unreadablePathIsALoadError() throws {
    let directory = try TemporaryDirectory()
    // A directory where the file should be.
    try FileManager.default.createDirectory(
      atPath: directory.path("taken.json"), withIntermediateDirectories: true
    )
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("taken.json")))) var value = 1
    #expect(($value.loadError as? FileStorageError)?.reason == .unreadable, "\(String(describing: $value.loadError))")
    // What cannot be read is not written over.
    $value.withLock { $0 = 2 }
    #expect(($value.saveError as? FileStorageError)?.reason == .unreadable)
    #expect(FileManager.default.fileExists(atPath: directory.path("taken.json")))
  }

  @Test func thousandTasksOfTenIncrementsOnAFile() async throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("count.json"))
    @Shared(.fileStorage(url)) var count = 0
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1_000 {
        group.addTask { [$count] in
          for _ in 0..<10 { $count.withLock { $0 += 1 } }
        }
      }
    }
    #expect(count == 10_000)
    #expect(try String(contentsOf: url, encoding: .utf8) == "10000")
  }

  @Test func nestedWithLockOnAFileDoesNotDeadlock() throws {
    let directory = try TemporaryDirectory()
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("n.json")))) var count = 0
    $count.withLock { outer in
      $count.withLock { $0 = 5 }
      outer = 6
    }
    #expect(count == 6)
  }

  @Test func flushedToDiskDurabilityWrites() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("durable.json"))
    @Shared(.fileStorage(url, durability: .flushedToDisk)) var value = "a"
    $value.withLock { $0 = "b" }
    #expect(try String(contentsOf: url, encoding: .utf8) == #""b""#)
  }

  @Test func companionFilesAreHiddenBesideTheTarget() throws {
    let directory = try TemporaryDirectory()
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("v.json")))) var value = 0
    $value.withLock { $0 = 1 }
    $value.withLock { $0 = 2 }
    #expect(
      try directory.contents()
        == [".v.json.sharedstate-lock", ".v.json.sharedstate-scratch", "v.json"]
    )
    #expect(CompanionPaths.isCompanion(".v.json.sharedstate-lock"))
    #expect(!CompanionPaths.isCompanion("v.json"))
  }

  /// The watcher tells companion files from targets on the name's bytes, before it makes a
  /// `String` of it: both checks must agree.
  @Test(arguments: [
    ".v.json.sharedstate-lock", ".v.json.sharedstate-scratch", ".sharedstate-lock", "v.json", ".v.json",
    "v.json.sharedstate-lock", ".v.json.sharedstate-lock~", ".v.json.sharedstate-scratc", "", ".",
  ])
  func companionNamesAreToldTheSameWayFromBytes(_ name: String) {
    #expect(name.withCString { CompanionPaths.isCompanion(systemName: $0) } == CompanionPaths.isCompanion(name))
  }

  @Test func permissionsSomeoneSetAreKeptAcrossWrites() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("private.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var value = 0
    $value.withLock { $0 = 1 }
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
    // A read after the change (as the watcher may make at any time) must not hide it.
    try await $value.load()
    for next in 2...4 {
      $value.withLock { $0 = next }
      let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions]
      #expect(permissions as? Int == 0o600, "after writing \(next)")
    }
  }

  @Test func symbolicLinkIsRefusedNotReplaced() throws {
    let directory = try TemporaryDirectory()
    let real = directory.path("real.json")
    let link = directory.path("link.json")
    try Data("1".utf8).write(to: URL(fileURLWithPath: real))
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
    @Shared(.fileStorage(URL(fileURLWithPath: link))) var value = 0
    // Invariant 8 (issue 8): the link is not followed, not even to read; the state says why.
    #expect(value == 0)
    let loadError = try #require($value.loadError as? FileStorageError)
    #expect(loadError.description.contains("symbolic link"))
    #expect(loadError.description.contains(link))
    $value.withLock { $0 = 2 }
    let error = try #require($value.saveError as? FileStorageError)
    #expect(error.description.contains("symbolic link"))
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real)
    #expect(try String(contentsOfFile: real, encoding: .utf8) == "1")
  }

  @Test func customDecodeAndEncode() throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("plain.txt"))
    @Shared(
      .fileStorage(
        url,
        decode: { @Sendable in String(decoding: $0, as: UTF8.self) },
        encode: { @Sendable in Data($0.utf8) }
      )
    ) var text = ""
    $text.withLock { $0 = "plain text" }
    #expect(try String(contentsOf: url, encoding: .utf8) == "plain text")
  }

  /// `save()` and `withLock` on one key from two threads at once finish, and lose no increment.
  /// Everywhere else the reference's lock is taken before the file's (a `withLock`, a change
  /// taken in): a save that handed back its outcome, which takes the reference's lock, while it
  /// still held the file's would deadlock with them; a save of the value read before its
  /// transaction would write over an increment made in between. The loops run on threads of
  /// their own, so that a deadlock cannot also stop the timeout.
  @Test func aSaveAndAWithLockAtOnceNeitherDeadlockNorLoseAnIncrement() async throws {
    let directory = try TemporaryDirectory()
    @Shared(.fileStorage(URL(fileURLWithPath: directory.path("count.json")))) var count = 0
    let shared = $count
    let rounds = 5000
    // A bound for a deadlock, which never ends: inside the full parallel suite the cooperative
    // pool, which runs each round's `save()`, can be busy for tens of seconds (this took 67–81 s
    // there, 1 s alone).
    try await onThreadsOfTheirOwn(seconds: 300) {
      for _ in 0..<rounds { shared.withLock { $0 += 1 } }
    } _: {
      for _ in 0..<rounds {
        let saved = DispatchSemaphore(value: 0)
        Task {
          try? await shared.save()
          saved.signal()
        }
        saved.wait()
      }
    }
    // A save writes the latest value, in a transaction of its own: never an older one over an
    // increment, so that none is lost.
    #expect(count == rounds)
    let stored = try Data(contentsOf: URL(fileURLWithPath: directory.path("count.json")))
    #expect(String(decoding: stored, as: UTF8.self) == String(rounds))
  }

  /// A program may call a file key's `save` itself, with a continuation that uses the same state.
  /// The key resumes it once its transaction has ended: a continuation that takes the
  /// reference's lock (here, through a `withLock` of its own) while another thread's `withLock`
  /// holds that lock and waits for the file's would otherwise deadlock, and one that takes the
  /// file's lock again on the same thread would never get it.
  @Test func aKeysSaveResumesItsContinuationOnceTheFileIsUnlocked() async throws {
    let directory = try TemporaryDirectory()
    let url = URL(fileURLWithPath: directory.path("count.json"))
    @Shared(.fileStorage(url)) var count = 0
    let shared = $count
    let key = FileStorageKey<Int>.fileStorage(url)
    let rounds = 500
    let failures = Mutex<[String]>([])
    // A bound for a deadlock only (see the test above for the busy pool).
    try await onThreadsOfTheirOwn(seconds: 300) {
      for _ in 0..<rounds { shared.withLock { $0 += 1 } }
    } _: {
      for round in 0..<rounds {
        let resumed = DispatchSemaphore(value: 0)
        key.save(round, context: .userInitiated, continuation: SaveContinuation { outcome in
          if case let .failure(error) = outcome { failures.withLock { $0.append("\(error)") } }
          shared.withLock { $0 += 1 }
          resumed.signal()
        })
        resumed.wait()
      }
    }
    #expect(failures.withLock { $0 } == [])
    // The reference and the file agree once both threads are done.
    let stored = try Data(contentsOf: url)
    #expect(String(decoding: stored, as: UTF8.self) == String(count))
  }
}

/// File storage in tests and previews: in memory by default.
@Suite("File storage in memory")
struct InMemoryFileStorageTests {
  @Test func testsUseAnInMemoryFileSystemByDefault() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("memory.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var value = 1
    $value.withLock { $0 = 2 }
    #expect(!FileManager.default.fileExists(atPath: file), "nothing reaches the disk")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var again = 0
    #expect(again == 2)
  }

  @Test func inMemoryFileSystemCanBePreparedAndInspected() async throws {
    let fileSystem = InMemoryFileSystem()
    fileSystem.setContents(Data("3".utf8), atPath: "/prepared.json")
    try await withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem)
    } operation: { () async throws -> Void in
      @Shared(.fileStorage(URL(fileURLWithPath: "/prepared.json"))) var value = 0
      #expect(value == 3)
      $value.withLock { $0 += 1 }
      #expect(fileSystem.contents(atPath: "/prepared.json") == Data("4".utf8))

      let values = AsyncQueue($value.values)
      #expect(try await values.next() == 4)
      fileSystem.setContents(Data("10".utf8), atPath: "/prepared.json")
      #expect(try await values.next() == 10)
      fileSystem.removeFile(atPath: "/prepared.json")
      #expect(try await values.next() == 0)
    }
  }
}
