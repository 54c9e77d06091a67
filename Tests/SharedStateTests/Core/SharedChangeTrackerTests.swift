import ConcurrencyExtras
import Foundation
@_spi(SharedChangeTracking) import SharedState
import Testing

/// `SharedChangeTracker`: changes recorded while tracking, asserted against snapshots.
@Suite("Shared change tracker")
struct SharedChangeTrackerTests {
  struct Profile: Equatable {
    var name = "Ada"
    var visits = 0
  }

  @Test func assertingReadsTheSnapshotAndChangesOnlyIt() {
    @Shared(value: Profile()) var profile
    let tracker = SharedChangeTracker()
    tracker.track {
      $profile.withLock { $0.visits = 3 }
    }
    #expect(tracker.hasChanges)
    #expect(profile.visits == 3, "outside assert: the state")
    tracker.assert {
      #expect(profile.visits == 0, "inside assert: the value before tracking")
      #expect($profile != $profile, "snapshot against the state: not yet asserted")
      $profile.withLock { $0.visits = 3 }
      #expect($profile == $profile)
    }
    #expect(profile.visits == 3)
  }

  @Test func aChangeThroughADerivedSharedIsTrackedOnItsState() {
    @Shared(value: Profile()) var profile
    let name = $profile.name
    let tracker = SharedChangeTracker()
    tracker.track {
      name.withLock { $0 = "Grace" }
    }
    tracker.assert {
      #expect(name.wrappedValue == "Ada")
      #expect(profile.name == "Ada")
      $profile.name.withLock { $0 = "Grace" }
      #expect($profile == $profile)
    }
  }

  @Test func aWithLockWhileAssertingMayReadSharedState() {
    @Shared(value: 1) var count
    @Shared(value: 10) var total
    let tracker = SharedChangeTracker()
    tracker.track { $count.withLock { $0 = 2 } }
    tracker.assert {
      // Reads the snapshot of `count` from inside a change to its own snapshot.
      $count.withLock { $0 = count + total - 9 }
      #expect($count == $count)
    }
  }

  @Test func writesWhileAssertingReachNoObserver() {
    @Shared(value: 0) var count
    let received = LockIsolated<[Int]>([])
    let subscription = $count.publisher.sink { value in received.withValue { $0.append(value) } }
    defer { subscription.cancel() }
    let tracker = SharedChangeTracker()
    tracker.track { $count.withLock { $0 = 1 } }
    tracker.assert {
      $count.withLock { $0 = 1 }
      #expect($count == $count)
    }
    #expect(received.value == [0, 1])
  }

  @Test func anUnassertedChangeIsReportedWhenTheTrackerGoesAway() {
    let optional = Shared<Int?>(value: 5)
    withKnownIssue {
      do {
        let tracker = SharedChangeTracker()
        tracker.track { optional.withLock { $0 = 6 } }
      }
    } matching: { issue in
      issue.description.hasSuffix("Tracked unasserted changes to 'Shared<Int?>(value: Optional(6))': Optional(5) → Optional(6)")
    }
  }

  @Test func reportingCanBeTurnedOff() {
    @Shared(value: 0) var count
    do {
      // Any issue reported here fails the test.
      let tracker = SharedChangeTracker(reportUnassertedChanges: false)
      tracker.track { $count.withLock { $0 += 1 } }
    }
    #expect(count == 1)
  }

  @Test func resetForgetsWhatWasTracked() {
    @Shared(value: 0) var count
    let tracker = SharedChangeTracker()
    tracker.track { $count.withLock { $0 += 1 } }
    tracker.reset()
    #expect(!tracker.hasChanges)
    tracker.assert { #expect(count == 1, "no snapshot left: the state") }
  }
}
