import ConcurrencyExtras
import Foundation
@testable import SharedState
import SystemPackage
import Testing

/// The storage layer's directory watcher, on its own.
// Serialized: the overflow test makes the kernel drop every queued event, other tests' too.
@Suite("Directory watcher", .serialized)
struct DirectoryWatcherTests {
  @Test func oneWatchServesEveryHandlerOfADirectoryAndGoesWithTheLast() async throws {
    let directory = try TemporaryDirectory()
    let path = FilePath(directory.url.path)
    let watcher = DirectoryWatcher.shared
    let subscriptions = try (0..<3).map { _ in try watcher.watch(directory: path) { _ in } }
    let descriptor = try #require(watcher.watchDescriptor(for: path))

    let other = try TemporaryDirectory()
    let otherSubscription = try watcher.watch(directory: FilePath(other.url.path)) { _ in }
    #expect(watcher.watchDescriptor(for: FilePath(other.url.path)) != descriptor)

    subscriptions[0].cancel()
    subscriptions[1].cancel()
    #expect(watcher.watchDescriptor(for: path) == descriptor, "a handler is still there")
    subscriptions[2].cancel()
    // The removal is applied when the watcher's thread next wakes; wait for it, bounded.
    let deadline = Date().addingTimeInterval(10)
    while watcher.watchDescriptor(for: path) != nil {
      try #require(Date() < deadline, "the watch was not removed with its last handler")
      await Task.yield()
    }
    otherSubscription.cancel()
  }

  @Test func reportsEntryChangesByKind() async throws {
    let directory = try TemporaryDirectory()
    let (events, continuation) = AsyncStream<DirectoryEvent>.makeStream()
    let subscription = try DirectoryWatcher.shared.watch(directory: FilePath(directory.url.path)) {
      continuation.yield($0)
    }
    defer { subscription.cancel() }
    let queue = AsyncQueue(events)

    /// Runs `action` until the watcher reports `expected`. A rescan means events were lost
    /// (another suite removed a directory the watcher still wanted); the action is tried again.
    func expect(_ expected: DirectoryEvent, after action: () async throws -> Void) async throws {
      for _ in 0..<3 {
        try await action()
        if try await queue.next(where: { $0 == expected || $0 == .rescan }) == expected { return }
      }
      Issue.record("\(expected) was not reported")
    }

    try await expect(.entryChanged("in-place", .writtenInPlace)) { () async throws in
      // Written in place, as a shell redirection does.
      #expect(try await DemoProcess.shell("echo 1 > '\(directory.path("in-place"))'").waitForExit() == 0)
    }
    try await expect(.entryChanged("renamed", .replaced)) { () async throws in
      let command = "echo 2 > '\(directory.path("staged"))' && mv -f '\(directory.path("staged"))' '\(directory.path("renamed"))'"
      #expect(try await DemoProcess.shell(command).waitForExit() == 0)
    }
    try await expect(.entryChanged("renamed", .replaced)) { () async throws in
      // Each try must make the event afresh: a rescan that arrives late (this directory became
      // watched, another suite removed a watched one) sends it round again, and removing a file
      // that is already gone raises nothing. Writing it in place first is a different event.
      let file = directory.path("renamed")
      #expect(try await DemoProcess.shell("echo 3 > '\(file)' && rm '\(file)'").waitForExit() == 0)
    }
  }

  @Test func lostEventsMakeEveryHandlerRescan() async throws {
    // Hold the watcher's thread in a handler while far more events than the kernel queues
    // (fs.inotify.max_queued_events) happen, then let it go: the queue overflows, and every
    // handler is told to rescan.
    let limit = Int(
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "16384"
    ) ?? 16384
    let blocker = try TemporaryDirectory()
    let busy = try TemporaryDirectory()
    let isHeld = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let isHeldOnce = LockIsolated(false)
    let holdFile = blocker.url.appendingPathComponent("hold")
    let holding = try DirectoryWatcher.shared.watch(directory: FilePath(blocker.url.path)) { event in
      // Another test's directory going away can also turn the event into a rescan.
      let isHoldEvent =
        event == .entryChanged("hold", .replaced) || event == .entryChanged("hold", .writtenInPlace)
        || (event == .rescan && FileManager.default.fileExists(atPath: holdFile.path))
      guard isHoldEvent else { return }
      let isFirst = isHeldOnce.withValue { wasHeld in
        defer { wasHeld = true }
        return !wasHeld
      }
      guard isFirst else { return }
      isHeld.signal()
      _ = release.wait(timeout: .now() + 30)
    }
    defer { holding.cancel() }
    let (events, continuation) = AsyncStream<DirectoryEvent>.makeStream()
    let watching = try DirectoryWatcher.shared.watch(directory: FilePath(busy.url.path)) {
      continuation.yield($0)
    }
    defer { watching.cancel() }

    try Data("x".utf8).write(to: holdFile)
    #expect(isHeld.wait(timeout: .now() + 10) == .success, "the handler was never called")
    // Closing a file opened for writing is one event; alternating two files keeps the kernel
    // from merging them. Raw calls keep the watcher held as briefly as possible.
    for name in ["a", "b"] {
      _ = FileManager.default.createFile(atPath: busy.path(name), contents: Data())
    }
    for index in 0..<(limit + 1_000) {
      let descriptor = open(busy.path(index.isMultiple(of: 2) ? "a" : "b"), O_WRONLY)
      try #require(descriptor >= 0)
      close(descriptor)
    }
    release.signal()
    #expect(try await AsyncQueue(events).next(seconds: 30) { $0 == .rescan } == .rescan)
  }
}
