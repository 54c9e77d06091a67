import Dependencies
import DependenciesTestSupport
import ConcurrencyExtras
import Foundation
import Observation
import SharedState
import Testing
import TestSupport

/// Writes made outside a process reach it live, whoever makes them.
@Suite("File storage: live changes", .dependency(\.defaultFileStorage, .fileSystem))
struct LiveChangeTests {
  @Test func watchingProcessSeesShellWritesRenamesDeletesAndGarbage() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    let watcher = try DemoProcess("watch", "--file", file)
    #expect(try await watcher.nextLine().hasSuffix(" null"))

    #expect(try await DemoProcess.shell("echo 1 > '\(file)'").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 1"))

    let staged = directory.path("staged.json")
    #expect(try await DemoProcess.shell("echo '\"two\"' > '\(staged)' && mv '\(staged)' '\(file)'").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" \"two\""))

    #expect(try await DemoProcess.shell("rm '\(file)'").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" null"))

    #expect(try await DemoProcess.shell("printf '{not json' > '\(file)'").waitForExit() == 0)
    let error = try await watcher.nextErrorLine()
    #expect(error.contains("does not hold a valid value"))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{not json", "the bad file is left alone")

    #expect(try await DemoProcess("set", "--file", file, "[3]").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" [3]"))
  }

  @Test func thisProcessSeesAnotherProcesssWrites() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var count = 0
    let values = AsyncQueue($count.values)
    #expect(try await values.next() == 0)
    #expect(try await DemoProcess("set", "--file", file, "41").waitForExit() == 0)
    #expect(try await values.next() == 41)
    #expect(try await DemoProcess("increment", "--file", file).waitForExit() == 0)
    #expect(try await values.next() == 42)
    #expect(count == 42)
  }

  @Test func anOutsideWriteDuringAWithLockThatChangesNothingIsDelivered() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("count.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var count = 0
    $count.withLock { $0 = 1 }
    let values = AsyncQueue($count.values)
    #expect(try await values.next() == 1)
    // A program that takes no lock replaces the file while this process holds the lock and the
    // reference's lock, in a transaction that changes nothing: the replacement is delivered,
    // whenever the watcher hears it.
    $count.withLock { _ in
      let staged = directory.path("staged.json")
      let replaced = ChildProcess.run("/bin/sh", ["-c", "echo 5 > '\(staged)' && mv '\(staged)' '\(file)'"])
      #expect(replaced.status == 0)
    }
    #expect(try await values.next() == 5)
    #expect(count == 5)
  }

  @Test func ownWritesAreNotEchoed() async throws {
    // A value type that is not Equatable: the change stream passes on every change it gets,
    // so an echo of this process's own write would show up as an extra element.
    struct Note: Codable, Sendable { var text: String }
    let directory = try TemporaryDirectory()
    let file = directory.path("note.json")
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var note = Note(text: "start")
    let values = $note.values
    $note.withLock { $0.text = "mine" }
    // Another process's write comes after this one's in the event queue; it marks the end.
    #expect(try await DemoProcess("set", "--file", file, #"{"text":"theirs"}"#).waitForExit() == 0)
    let seen = try await first(3, of: values).map(\.text)
    #expect(seen == ["start", "mine", "theirs"])
  }

  @Test func directoryRemovedAndCreatedAgainIsFollowed() async throws {
    let directory = try TemporaryDirectory()
    let nested = directory.url.appendingPathComponent("a/b")
    let file = nested.appendingPathComponent("value.json").path
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var value = 0
    let values = AsyncQueue($value.values)
    #expect(try await values.next() == 0)
    $value.withLock { $0 = 1 }
    #expect(try await values.next() == 1)
    // This process puts the placeholder back as soon as it sees the file gone, as swift-sharing
    // does, creating its directory again: that can land between `rm`'s removal of a directory's
    // entries and its `rmdir`, which then fails. So `rm` may have to go again.
    let removed = directory.url.appendingPathComponent("a").path
    let removal = "for attempt in $(seq 20); do rm -rf '\(removed)' 2>/dev/null && exit 0; done; rm -rf '\(removed)'"
    #expect(try await DemoProcess.shell(removal).waitForExit() == 0)
    #expect(try await values.next() == 0, "the file is gone: back to the default")
    #expect(try await DemoProcess("set", "--file", file, "2").waitForExit() == 0)
    #expect(try await values.next() == 2)
  }

  @Test func observerOfAnotherProcesssWriteCanOpenMoreSharedFiles() async throws {
    // The observer runs on the file watcher's thread; opening a file there registers a watch
    // from that same thread, which must not wait for itself.
    let directory = try TemporaryDirectory()
    let trigger = directory.path("trigger.json")
    let opened = directory.path("opened.json")
    try Data("5".utf8).write(to: URL(fileURLWithPath: opened))
    @Shared(.fileStorage(URL(fileURLWithPath: trigger))) var value = 0
    let (openedValues, continuation) = AsyncStream<Int>.makeStream()
    withObservationTracking {
      _ = value
    } onChange: {
      let shared = withDependencies {
        $0.defaultFileStorage = .fileSystem
      } operation: {
        Shared(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: opened)))
      }
      continuation.yield(shared.wrappedValue)
    }
    #expect(try await DemoProcess("set", "--file", trigger, "1").waitForExit() == 0)
    #expect(try await AsyncQueue(openedValues).next() == 5)
  }

  @Test func fileInADirectoryThatDoesNotExistYetIsWatched() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("later/deeper/value.json").path
    @Shared(.fileStorage(URL(fileURLWithPath: file))) var value = "none"
    let values = AsyncQueue($value.values)
    #expect(try await values.next() == "none")
    #expect(try await DemoProcess("set", "--file", file, #""created""#).waitForExit() == 0)
    #expect(try await values.next() == "created")
  }
}
