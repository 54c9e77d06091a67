import ConcurrencyExtras
import Dependencies
import Foundation
import SharedState
import Testing

/// `FileStorage.inMemory(fileSystem:async:asyncAfter:)`: files in a table a test owns, by URL.
@Suite("In-memory file storage over a table of URLs")
struct InMemoryFileTableTests {
  let url = URL(fileURLWithPath: "/nowhere/numbers.json")

  @Test func writesLandInTheTableUnderTheFilesURL() throws {
    let files = LockIsolated<[URL: Data]>([:])
    try withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem: files)
    } operation: {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect(files.value == [URL(fileURLWithPath: "/nowhere/numbers.json"): Data()], "a read leaves an empty file")
      $numbers.withLock { $0 = [4, 2] }
      let written = try #require(files.value[URL(fileURLWithPath: "/nowhere/numbers.json")])
      #expect(try JSONDecoder().decode([Int].self, from: written) == [4, 2])
    }
  }

  @Test func anEntryPutInTheTableIsTheFile() throws {
    let files = try LockIsolated<[URL: Data]>([url: try JSONEncoder().encode([7])])
    withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem: files)
    } operation: {
      @Shared(.fileStorage(url)) var numbers = [Int]()
      #expect(numbers == [7])
    }
  }

  @Test func theSchedulerDecidesWhenOtherReadersHearOfAWrite() async throws {
    let files = LockIsolated<[URL: Data]>([:])
    let queued = LockIsolated<[QueuedWork]>([])
    let (announcements, announce) = AsyncStream<Void>.makeStream()
    let storage = FileStorage.inMemory(fileSystem: files, async: { item in
      let work = QueuedWork(item: item)
      queued.withValue { $0.append(work) }
      announce.yield()
    })
    try await withDependencies {
      $0.defaultFileStorage = storage
    } operation: {
      @Shared(.fileStorage(url)) var count = 0
      // Another value type is another state over the same file: it hears of writes as another
      // process would.
      @SharedReader(.fileStorage(url)) var reader: Int? = nil
      $count.withLock { $0 = 5 }
      _ = try await first(1, of: announcements)
      #expect(reader == nil, "not told until the scheduler runs the work")
      for work in queued.value { work.item.perform() }
      #expect(reader == 5)
    }
  }

  @Test func aKeySubscribedWithoutLoadingHearsOnlyLaterChanges() async throws {
    let fileSystem = InMemoryFileSystem()
    fileSystem.setContents(Data("5".utf8), atPath: url.path)
    let key: FileStorageKey<Int> = withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem)
    } operation: {
      .fileStorage(url)
    }
    let (heard, hear) = AsyncStream<Int?>.makeStream()
    let subscription = key.subscribe(
      context: .userInitiated,
      subscriber: SharedSubscriber { hear.yield(try? $0.get()) }
    )
    defer { subscription.cancel() }
    fileSystem.setContents(Data("6".utf8), atPath: url.path)
    #expect(try await first(1, of: heard) == [6], "not the 5 that was there before")
  }
}

/// A work item the test runs later. `@unchecked Sendable`: a `DispatchWorkItem` may be performed
/// from any thread (Dispatch's own queues do so); corelibs-foundation only leaves it unmarked.
private struct QueuedWork: @unchecked Sendable {
  let item: DispatchWorkItem
}
