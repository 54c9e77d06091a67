import CGLib
import Dependencies
import Foundation
import OpenCombineShim
import SharedState
import SharedStateGLib
import Synchronization
import XCTest

/// `SharedChangeDelivery.glibMainContext` and the context it hands work to.
final class GLibDeliveryTests: XCTestCase {
  /// A change written by another process reaches the observer inside the loop of the process
  /// that chose the delivery: on the thread that owns the default main context, with the new
  /// value already readable from the shared state in the callback; and the next one too, in
  /// order.
  func testAChangeFromAnotherProcessReachesTheObserverOnTheLoopsThread() throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    let observer = try RunningProgram(RunningProgram.built("SharedGLibProbe"), ["observe", file])
    defer { observer.terminate() }
    let ready = ProbeLine(try observer.line(startingWith: "ready"))
    XCTAssertEqual(ready.words.dropFirst().first, "0")

    for value in [5, 6] {
      let writer = try RunningProgram(RunningProgram.built("SharedGLibProbe"), ["write", file, "\(value)"])
      XCTAssertEqual(try writer.exit(), 0)
      let change = ProbeLine(try observer.line(startingWith: "change \(value) "))
      XCTAssertEqual(change["owner"], "true", "delivered inside the loop: \(change.words)")
      XCTAssertEqual(change["main"], "true", "on the loop's thread: \(change.words)")
      XCTAssertEqual(change["read"], "\(value)", "the new value is readable in the callback")
      XCTAssertEqual(change["isolated"], "true", "Swift accepts the loop's thread as the main actor's")
    }
  }

  /// Work handed to a context from another thread runs on the thread that iterates it, which
  /// owns the context while it runs.
  func testInvokeRunsOnTheThreadThatIteratesTheContext() throws {
    let raw = g_main_context_new()!
    defer { g_main_context_unref(raw) }
    let context = GLibMainContext(retaining: raw)
    let ran = Mutex<(count: Int, owner: Bool, thread: pthread_t?)>((0, false, nil))
    let handedOver = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      context.invoke {
        ran.withLock { $0 = ($0.count + 1, context.isOwner, pthread_self()) }
      }
      handedOver.signal()
    }
    XCTAssertEqual(handedOver.wait(timeout: .now() + 10), .success)
    XCTAssertEqual(ran.withLock { $0.count }, 0, "not run before the context is iterated")
    let deadline = Date(timeIntervalSinceNow: 10)
    while ran.withLock({ $0.count }) == 0, Date() < deadline {
      g_main_context_iteration(raw, 0)
    }
    let result = ran.withLock { $0 }
    XCTAssertEqual(result.count, 1)
    XCTAssertTrue(result.owner)
    XCTAssertEqual(result.thread.map { pthread_equal($0, pthread_self()) }, 1)
    // Once: nothing left to run.
    XCTAssertEqual(g_main_context_iteration(raw, 0), 0)
    XCTAssertEqual(ran.withLock { $0.count }, 1)
  }

  /// Work that is still queued when its context goes away is released, with everything it
  /// captured, and never runs.
  func testQueuedWorkIsReleasedWhenItsContextGoesAwayWithoutRunningIt() throws {
    final class Captured: Sendable {}
    weak var weakCaptured: Captured?
    let ran = Atomic<Bool>(false)
    do {
      let raw = g_main_context_new()!
      let context = GLibMainContext(retaining: raw)
      g_main_context_unref(raw)
      let captured = Captured()
      weakCaptured = captured
      // This thread neither owns nor has this context as its default: the work is queued.
      context.invoke {
        withExtendedLifetime(captured) { ran.store(true, ordering: .relaxed) }
      }
      XCTAssertNotNil(weakCaptured, "queued work holds what it captured")
    }
    XCTAssertNil(weakCaptured, "freeing the context destroyed the source and released the work")
    XCTAssertFalse(ran.load(ordering: .relaxed))
  }

  /// An observer cancelled while a change for it waits in the context's queue is released at
  /// once, with what it captured, and never called: the queued delivery holds no observer.
  func testAnObserverCancelledWhileItsDeliveryIsQueuedIsReleasedAndNeverCalled() throws {
    final class Captured: Sendable {}
    let raw = g_main_context_new()!
    defer { g_main_context_unref(raw) }
    let previous = SharedChangeDelivery.default
    SharedChangeDelivery.default = .glibMainContext(GLibMainContext(retaining: raw))
    defer { SharedChangeDelivery.default = previous }

    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    // On disk, not in the test's in-memory file storage: another process writes the file.
    let shared = withDependencies {
      $0.defaultFileStorage = .fileSystem
    } operation: {
      Shared<Int>(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: file)))
    }
    let received = Mutex<[Int]>([])
    weak var weakCaptured: Captured?
    var cancellable: AnyCancellable?
    do {
      let captured = Captured()
      weakCaptured = captured
      cancellable = shared.publisher.dropFirst().sink { @Sendable value in
        withExtendedLifetime(captured) { received.withLock { $0.append(value) } }
      }
    }

    // Another process writes; nobody iterates the context, so the delivery waits in it.
    let writer = try RunningProgram(RunningProgram.built("SharedGLibProbe"), ["write", file, "5"])
    XCTAssertEqual(try writer.exit(), 0)
    let deadline = Date(timeIntervalSinceNow: 10)
    while g_main_context_pending(raw) == 0, Date() < deadline {
      usleep(1_000)
    }
    XCTAssertNotEqual(g_main_context_pending(raw), 0, "a delivery waits in the context")
    XCTAssertNotNil(weakCaptured)

    cancellable?.cancel()
    cancellable = nil
    XCTAssertNil(weakCaptured, "cancelling released the observer while its delivery was queued")
    while g_main_context_iteration(raw, 0) != 0 {}
    XCTAssertEqual(received.withLock { $0 }, [], "a cancelled observer is never called")
    XCTAssertEqual(shared.wrappedValue, 5, "the value itself was committed")
  }

  /// The delivery names its context.
  func testTheDeliveryDescribesItsContext() {
    XCTAssertEqual(
      SharedChangeDelivery.glibMainContext(.default).description,
      "SharedChangeDelivery.glibMainContext(GLibMainContext(default))"
    )
  }
}
