import Testing

@testable import SharedState

/// Times in microseconds, for legibility.
private func µs(_ value: UInt64) -> UInt64 { value * 1_000 }

/// When the reading of events pauses before it waits again, from the times alone.
@Suite("Watching: reading pace")
struct ReadingPaceTests {
  private static func pace() -> ReadingPace {
    ReadingPace(burstGap: µs(1_000), pause: µs(100), wokenAfter: µs(10))
  }

  @Test func anIsolatedWakeUpIsNotPaced() {
    var pace = Self.pace()
    pace.waited(from: 0, to: µs(5_000))
    #expect(!pace.isInBurst)
    #expect(pace.pause(at: µs(5_010)) == 0)
    // The next write comes after a quiet moment: still no pause.
    pace.waited(from: µs(5_010), to: µs(7_000))
    #expect(!pace.isInBurst)
    #expect(pace.pause(at: µs(7_010)) == 0)
  }

  @Test func wakeUpsCloseTogetherPauseUntilThePauseAfterTheLastOneIsOver() {
    var pace = Self.pace()
    pace.waited(from: 0, to: µs(1_000))
    pace.waited(from: µs(1_020), to: µs(1_300))
    #expect(pace.isInBurst)
    #expect(pace.pause(at: µs(1_330)) == µs(70))
    // Events read meanwhile took the time: nothing is left to wait.
    #expect(pace.pause(at: µs(1_450)) == 0)
  }

  @Test func eventsAlreadyQueuedAreNotWakeUps() {
    var pace = Self.pace()
    pace.waited(from: 0, to: µs(1_000))
    // Quick returns: the event was in the library's buffer or the kernel's queue.
    pace.waited(from: µs(1_001), to: µs(1_003))
    pace.waited(from: µs(1_004), to: µs(1_006))
    #expect(!pace.isInBurst)
    #expect(pace.pause(at: µs(1_007)) == 0)
  }

  @Test func aQuietMomentEndsTheBurst() {
    var pace = Self.pace()
    pace.waited(from: 0, to: µs(1_000))
    pace.waited(from: µs(1_100), to: µs(1_200))
    #expect(pace.isInBurst)
    pace.waited(from: µs(1_300), to: µs(3_000))
    #expect(!pace.isInBurst)
    #expect(pace.pause(at: µs(3_001)) == 0)
  }

  /// Which calls the reader does not time: those after an event whose system call queued
  /// another right after it. A write's exchange raises, in this order, the target's departure,
  /// the scratch file's arrival, the scratch file's departure and the target's arrival; the
  /// scratch file's two are passed over before they become events (`InotifyTools.nextEvent`), so
  /// the reader gets the target's two, and only the last leaves the next call to wait.
  @Test func onlyTheLastEventOfAnExchangeLeavesTheNextCallToWait() {
    let watch = WatchDescriptor(rawValue: 1)
    let exchange = [
      InotifyEvent(descriptor: watch, events: .movedFrom, name: "count.json"),
      InotifyEvent(descriptor: watch, events: .movedTo, name: "count.json"),
    ]
    #expect(exchange.map(\.isFollowedInItsCall) == [true, false])
    // A write in place, a file created or removed, a companion file closed after writing or
    // removed: one event per call.
    for events: InotifyEvents in [.closedAfterWriting, .created, .deleted] {
      #expect(!InotifyEvent(descriptor: watch, events: events, name: "count.json").isFollowedInItsCall)
      #expect(!InotifyEvent(descriptor: watch, events: events, name: "", isAboutCompanionFile: true).isFollowedInItsCall)
    }
  }
}
