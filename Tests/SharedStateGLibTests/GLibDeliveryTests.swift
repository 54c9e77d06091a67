import CGLib
import Foundation
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
    let directory = try TemporaryTestDirectory()
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

  /// The delivery names its context.
  func testTheDeliveryDescribesItsContext() {
    XCTAssertEqual(
      SharedChangeDelivery.glibMainContext(.default).description,
      "SharedChangeDelivery.glibMainContext(GLibMainContext(default))"
    )
  }
}
