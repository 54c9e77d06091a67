import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Testing
import TestSupport

/// One key value serving two references (the same `static let` key in two dependency contexts,
/// as parallel tests have) or a reference and the program's own calls: each reference keeps a
/// knowledge of the stored value of its own, so none takes in a change the other then misses,
/// and no `withLock` writes over a value its reference never heard of.
@Suite("File storage: references of one key value", .dependency(\.defaultFileStorage, .fileSystem))
struct ReferencesOfOneKeyTests {
  @Test func twoReferencesOfOneFileKeyEachTakeInAnotherProcesssWrite() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let key: FileStorageKey<Int> = .fileStorage(URL(fileURLWithPath: file))
    let first = sharedInAContextOfItsOwn(key)
    let second = sharedInAContextOfItsOwn(key)
    let firstValues = AsyncQueue(first.values)
    let secondValues = AsyncQueue(second.values)
    #expect(try await DemoProcess("set", "--file", file, "41").waitForExit() == 0)
    #expect(try await firstValues.next(where: { $0 == 41 }) == 41)
    #expect(try await secondValues.next(where: { $0 == 41 }) == 41)
    first.withLock { $0 += 1 }
    second.withLock { $0 += 1 }
    #expect(try Self.stored(in: file) == "43", "neither increment is lost")
    #expect(try await firstValues.next(where: { $0 == 43 }) == 43)
    #expect(second.wrappedValue == 43)
  }

  @Test func twoReferencesOfOneAppStorageKeyEachTakeInAnotherProcesssWrite() async throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: directory.url)
    let key: AppStorageKey<Int> = .appStorage("count", store: suite)
    let first = sharedInAContextOfItsOwn(key)
    let second = sharedInAContextOfItsOwn(key)
    let firstValues = AsyncQueue(first.values)
    let secondValues = AsyncQueue(second.values)
    #expect(try await DemoProcess("set", "--suite", directory.url.path, "--key", "count", "41").waitForExit() == 0)
    #expect(try await firstValues.next(where: { $0 == 41 }) == 41)
    #expect(try await secondValues.next(where: { $0 == 41 }) == 41)
    first.withLock { $0 += 1 }
    second.withLock { $0 += 1 }
    #expect(try suite.value(forKey: "count", as: Int.self) == 43, "neither increment is lost")
    #expect(try await firstValues.next(where: { $0 == 43 }) == 43)
  }

  /// The program saves through the very key value its `@Shared` was made with: the reference
  /// hears the save as any other write, and its next `withLock` starts from it.
  @Test func aReferenceHearsASaveMadeThroughItsKeyValue() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    let key: FileStorageKey<Int> = .fileStorage(URL(fileURLWithPath: file))
    @Shared(key) var count = 0
    let values = AsyncQueue($count.values)
    #expect(try await values.next() == 0)
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      key.save(10, context: .userInitiated, continuation: SaveContinuation { done.resume(with: $0) })
    }
    #expect(try await values.next(where: { $0 == 10 }) == 10)
    $count.withLock { $0 += 1 }
    #expect(try Self.stored(in: file) == "11", "the increment starts from the saved value")
  }

  /// What the file holds, less surrounding white space.
  private static func stored(in file: String) throws -> String {
    try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
