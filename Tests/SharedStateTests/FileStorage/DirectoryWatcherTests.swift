import ConcurrencyExtras
import Foundation
@testable import SharedState
import Synchronization
import SystemPackage
import Testing

/// The storage layer's watcher, on its own: events routed per file, coalesced, delivered off
/// the reading thread.
@Suite("Directory watcher")
struct DirectoryWatcherTests {
  /// Collects the events of one registration.
  private static func watch(_ path: String) -> (WatchToken, AsyncQueue<FileWatchEvent>) {
    let (events, continuation) = AsyncStream<FileWatchEvent>.makeStream()
    let token = DirectoryWatcher.shared.watch(file: FilePath(path)) { continuation.yield($0) }
    return (token, AsyncQueue(events))
  }

  /// The reader keeps the registrations of the file it routed an event to last; a registration
  /// made for that file afterwards is not left out of its next event. (Other tests' events, in
  /// the parallel suite, may route in between and empty that cache: the test then passes either
  /// way; alone, it fails when a new registration leaves the cache in place.)
  @Test func aSecondRegistrationOfAFileHearsItsNextEvent() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("again.json")
    let (first, firstEvents) = Self.watch(file)
    try await waitUntilWatched(file)
    #expect(try await DemoProcess.shell("echo 1 > '\(file)'").waitForExit() == 0)
    _ = try await firstEvents.next(seconds: 60) { _ in true }
    // A second registration of the same file: the next event is routed to it too.
    let (second, secondEvents) = Self.watch(file)
    defer { first.cancel(); second.cancel() }
    #expect(try await DemoProcess.shell("echo 2 > '\(file)'").waitForExit() == 0)
    _ = try await secondEvents.next(seconds: 20) { _ in true }
  }

  @Test func eachFileHearsOnlyItsOwnNameAndNeverCompanions() async throws {
    let directory = try TemporaryDirectory()
    let (tokenA, eventsA) = Self.watch(directory.path("a.json"))
    let (tokenB, eventsB) = Self.watch(directory.path("b.json"))
    defer { tokenA.cancel(); tokenB.cancel() }
    try await waitUntilWatched(directory.path("a.json"))
    // Companion files of a.json, then a.json itself written in place, then b.json replaced.
    let command = """
      echo x > '\(directory.path(".a.json.sharedstate-lock"))' && \
      echo x > '\(directory.path(".a.json.sharedstate-scratch"))' && \
      echo 1 > '\(directory.path("a.json"))' && \
      echo 2 > '\(directory.path("staged"))' && mv '\(directory.path("staged"))' '\(directory.path("b.json"))'
      """
    #expect(try await DemoProcess.shell(command).waitForExit() == 0)
    // Inside the full parallel suite the watcher's thread can fall so far behind the stress
    // tests' events that the kernel's queue overflows: events are lost, and every handle hears
    // `resynchronize` instead, which is right, but leaves no kind to check. So the next event
    // must be of the expected kind, or a resynchronize, which ends the kind checks; another
    // file's event (b.json's replacement reaching a.json) still fails the test.
    func next(_ events: AsyncQueue<FileWatchEvent>, is expected: FileWatchEvent) async throws -> Bool {
      let event = try await events.next(seconds: 60) { _ in true }
      #expect(event == expected || event == .resynchronize, "\(event)")
      if event == .resynchronize { print("events were lost (queue overflow): the kind checks stop here") }
      return event == expected
    }
    guard try await next(eventsA, is: .writtenInPlace), try await next(eventsB, is: .replaced) else { return }
    // a.json hears nothing of b.json's replacement: one more own event marks the end.
    #expect(try await DemoProcess.shell("rm '\(directory.path("a.json"))'").waitForExit() == 0)
    _ = try await next(eventsA, is: .replaced)
  }

  @Test func aSlowHandleDoesNotHoldUpAnother() async throws {
    let directory = try TemporaryDirectory()
    let release = DispatchSemaphore(value: 0)
    let isSlowBusy = LockIsolated(false)
    let (slowStarted, slowStartedContinuation) = AsyncStream<Void>.makeStream()
    let slowWritten = LockIsolated(false)
    let slow = DirectoryWatcher.shared.watch(file: FilePath(directory.path("slow.json"))) { event in
      // Any delivery once the file was written counts (a resynchronize stands for dropped
      // events); only the first makes it busy.
      guard slowWritten.value, !isSlowBusy.value else { return }
      isSlowBusy.setValue(true)
      slowStartedContinuation.yield()
      // A slow observer: busy until the test lets it go (90 s at most). It blocks a delivery
      // thread of the watcher's, never one of the tests' tasks.
      _ = release.wait(timeout: .now() + 90)
      isSlowBusy.setValue(false)
    }
    defer {
      release.signal()
      slow.cancel()
    }
    // Each delivery to the other file: its latency, and whether the slow handle was busy then.
    let written = LockIsolated<UInt64>(0)
    let (deliveries, deliveryContinuation) = AsyncStream<(latency: Double, slowWasBusy: Bool)>.makeStream()
    let fast = DirectoryWatcher.shared.watch(file: FilePath(directory.path("fast.json"))) { event in
      // Any delivery once the file was written counts: a resynchronize stands for events the
      // kernel dropped (its queue overflows inside the full parallel suite).
      guard written.value != 0 else { return }
      let latency = Double(DispatchTime.now().uptimeNanoseconds - written.value) / 1_000
      deliveryContinuation.yield((latency, isSlowBusy.value))
    }
    defer { fast.cancel() }
    try await waitUntilWatched(directory.path("fast.json"))

    slowWritten.setValue(true)
    #expect(try await DemoProcess.shell("echo 1 > '\(directory.path("slow.json"))'").waitForExit() == 0)
    // Generous waits: inside the full parallel suite the watcher's thread can be seconds behind
    // the stress tests' events.
    _ = try await AsyncQueue(slowStarted).next(seconds: 60)
    written.setValue(DispatchTime.now().uptimeNanoseconds)
    let descriptor = open(directory.path("fast.json"), O_WRONLY | O_CREAT, 0o600)
    try #require(descriptor >= 0)
    close(descriptor)
    let delivery = try #require(try await AsyncQueue(deliveries).next(seconds: 60))
    #expect(delivery.slowWasBusy, "the other file's event waited for the slow handle")
    print("another file's event was delivered \(String(format: "%.0f", delivery.latency)) µs after its write, while a handle was busy")
  }

  @Test func burstsAreCoalesced() {
    #expect(FileWatchRegistration.merge(nil, .replaced) == .replaced)
    #expect(FileWatchRegistration.merge(.replaced, .writtenInPlace) == .writtenInPlace)
    #expect(FileWatchRegistration.merge(.writtenInPlace, .replaced) == .writtenInPlace)
    #expect(FileWatchRegistration.merge(.replaced, .resynchronize) == .resynchronize)
    #expect(FileWatchRegistration.merge(.resynchronize, .writtenInPlace) == .resynchronize)
  }

  @Test func directoriesRegisteredWhileOthersComeAndGoAreNeverReportedUnwatched() async throws {
    // Registrations of new directories, and their ends, from several threads at once keep the
    // wanted set moving while the reading thread applies it: none may be told it cannot be
    // watched (each directory exists from before its registration to after its end).
    let unwatched = LockIsolated<[String]>([])
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          var held: [(TemporaryDirectory, WatchToken)] = []
          for round in 0..<20 {
            let directory = try TemporaryDirectory()
            let token = DirectoryWatcher.shared.watch(file: FilePath(directory.path("value.json"))) { event in
              if case let .unwatched(failure) = event { unwatched.withValue { $0.append("\(failure)") } }
            }
            held.append((directory, token))
            if round % 3 == 0, held.count > 4 { held.removeFirst().1.cancel() }
          }
          for (_, token) in held { token.cancel() }
        }
      }
      try await group.waitForAll()
    }
    #expect(unwatched.value == [])
  }

  @Test func anEventForAHandleWithADeliveryScheduledIsNotJudgedTwice() {
    let asked = Mutex(0)
    let delivered = Mutex<[FileWatchEvent]>([])
    let registration = FileWatchRegistration(
      watcher: DirectoryWatcher(), directory: FilePath("/nowhere"), name: "value.json",
      admits: { _ in
        asked.withLock { $0 += 1 }
        return true
      },
      onEvent: { event in delivered.withLock { $0.append(event) } }
    )
    #expect(registration.offer(.replaced), "the first event is the caller's to deliver")
    // The delivery is scheduled and has not run: it will judge the file after these events.
    #expect(!registration.offer(.replaced))
    #expect(!registration.offer(.replaced))
    #expect(asked.withLock { $0 } == 1)
    registration.deliverPending()
    #expect(delivered.withLock { $0 } == [.replaced])
    // Delivered: the next event is judged again.
    #expect(registration.offer(.replaced))
    #expect(asked.withLock { $0 } == 2)
  }

  /// A thread with work of its own (a writer letting go of its lock) delivers once: an event
  /// that arrives during that delivery is delivered on another thread, so that changes made
  /// elsewhere without pause cannot keep it delivering.
  @Test func aDeliveryMadeOnceLeavesWhatArrivesMeanwhileToThePool() async throws {
    let delivered = Mutex<[(FileWatchEvent, pthread_t)]>([])
    let registration = Mutex<FileWatchRegistration?>(nil)
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let made = FileWatchRegistration(
      watcher: DirectoryWatcher(), directory: FilePath("/nowhere"), name: "value.json", admits: nil,
      onEvent: { event in
        let count = delivered.withLock { delivered in
          delivered.append((event, pthread_self()))
          return delivered.count
        }
        // The first delivery: another event arrives while it runs.
        if count == 1 { #expect(registration.withLock { $0 }?.enqueue(.writtenInPlace) == false) }
        if count == 2 { continuation.yield() }
      }
    )
    registration.withLock { $0 = made }
    #expect(made.enqueue(.replaced))
    made.deliverPendingOnce()
    // (The pool's delivery of the second may already have run: only this thread's count.)
    #expect(delivered.withLock { $0.filter { pthread_equal($0.1, pthread_self()) != 0 }.count } == 1, "one delivery on this thread")
    let events = AsyncQueue(stream)
    #expect(try await events.next(seconds: 60) != nil)
    let (second, thread) = try #require(delivered.withLock { $0.last })
    #expect(second == .writtenInPlace)
    #expect(pthread_equal(thread, pthread_self()) == 0)
    // Delivered: the next event is the caller's to deliver again.
    #expect(made.enqueue(.replaced))
    made.deliverPending()
  }

  @Test func backoffDoublesUpToItsMaximumAndStartsOver() {
    var backoff = RetryBackoff(initial: .milliseconds(50), maximum: .milliseconds(300))
    #expect([backoff.failed(), backoff.failed(), backoff.failed(), backoff.failed()]
      == [.milliseconds(50), .milliseconds(100), .milliseconds(200), .milliseconds(300)])
    backoff.succeeded()
    #expect(backoff.failed() == .milliseconds(50))
  }
}

/// The watch plan, without the kernel.
@Suite("Watch plan")
struct WatchPlanTests {
  private static func plan(_ wanted: [String], existing: Set<String>) -> WatchPlan {
    WatchPlan(wanted: wanted.map { FilePath($0) }, exists: { existing.contains($0.string) })
  }

  @Test func existingDirectoryIsWatchedWithItsParentGuardingIt() {
    let plan = Self.plan(["/home/u/.config/app"], existing: ["/", "/home", "/home/u", "/home/u/.config", "/home/u/.config/app"])
    #expect(plan.targets[FilePath("/home/u/.config/app")] == WatchPlan.directoryEvents)
    #expect(plan.targets[FilePath("/home/u/.config")] == WatchPlan.guardEvents)
    // Every file made in ~/.config would wake the watcher; only a departure can free the name.
    #expect(!WatchPlan.guardEvents.contains(.created))
    #expect(WatchPlan.awaitEvents.contains(.created))
    #expect(plan.targets.count == 2)
    #expect(plan.isGuarded("app", in: FilePath("/home/u/.config")))
    #expect(plan.watchedDirectories == [FilePath("/home/u/.config/app")])
    #expect(plan.servingPath[FilePath("/home/u/.config/app")] == FilePath("/home/u/.config/app"))
  }

  @Test func missingDirectoryIsWaitedForThroughItsNearestExistingAncestor() {
    let plan = Self.plan(["/data/a/b/c"], existing: ["/", "/data"])
    #expect(plan.targets == [FilePath("/data"): WatchPlan.awaitEvents])
    #expect(plan.isGuarded("a", in: FilePath("/data")))
    #expect(!plan.isGuarded("b", in: FilePath("/data")))
    #expect(plan.watchedDirectories.isEmpty)
    #expect(plan.servingPath[FilePath("/data/a/b/c")] == FilePath("/data"))
  }

  @Test func oneWatchServesNestedAndSiblingDirectories() {
    let plan = Self.plan(
      ["/s/one", "/s/two", "/s/one/inner"],
      existing: ["/", "/s", "/s/one", "/s/two", "/s/one/inner"]
    )
    // /s/one is wanted for its files and guards `inner`: both sets of events, one watch.
    #expect(plan.targets[FilePath("/s/one")] == WatchPlan.directoryEvents.union(WatchPlan.guardEvents))
    #expect(plan.targets[FilePath("/s")] == WatchPlan.guardEvents)
    #expect(plan.guardedNames[FilePath("/s")] == ["one", "two"])
    #expect(plan.targets.count == 4)
  }

  @Test func rootHasNoParent() {
    let plan = Self.plan(["/"], existing: ["/"])
    #expect(plan.targets == [FilePath("/"): WatchPlan.directoryEvents])
  }
}
