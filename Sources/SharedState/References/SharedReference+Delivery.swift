import Foundation
import Observation

/// Delivering to observers: changes are queued under the reference's lock and delivered once it
/// is released (invariant 10), on the thread that made them, or for changes from elsewhere where
/// ``SharedChangeDelivery/default`` says.
extension SharedReference {
  /// Runs `body` under `lock`, then, once the lock is released by the outermost call, delivers
  /// what it queued on this thread: changes this process makes reach its observers on the
  /// thread that made them, as with swift-sharing.
  // Inlined: called from `withLock`'s generic entry, it took the reference owned (a retain and a
  // release per write, through the side table of an object the registry holds weakly).
  @inline(__always)
  func changing<R>(_ body: () throws -> R) rethrows -> R {
    // Whether there is anything to deliver is asked in the critical section of the change: a
    // write that queued nothing (no listener, no Observation) takes the lock once. Delivered
    // also when `body` throws, for what it queued before. (Not through `lockedForChange`: the
    // closure nested in it cost about 0.2 µs per write, 7 turns of write_cost.sh alternated.)
    var mustDeliver = false
    // The transaction of a `withLock` that ended inside: its deliveries resume once the lock
    // is released, before the observers hear anything.
    var toResume: (any KeyTransaction)?
    defer {
      toResume?.resumeDeliveries()
      if mustDeliver { deliverPendingChanges() }
    }
    return try lock.withLock {
      changeDepth += 1
      defer {
        changeDepth -= 1
        if changeDepth == 0 {
          mustDeliver = outbox.hasDeliveryToBegin
          toResume = transactionToResume.take()
        }
      }
      return try body()
    }
  }

  /// Runs `body` under `lock`, counting how deep this thread is in changes (`changeDepth`).
  func lockedForChange<R>(_ body: () throws -> R) rethrows -> R {
    try lock.withLock {
      changeDepth += 1
      defer { changeDepth -= 1 }
      return try body()
    }
  }

  /// Runs `body` under `lock` for a change that arrived from elsewhere (the key's subscription),
  /// then hands its delivery to ``SharedChangeDelivery/default``.
  func receivingFromElsewhere(_ body: () -> Void) {
    let delivery = SharedChangeDelivery.default
    guard !delivery.isImmediate else { return changing(body) }
    let schedules = lockedForChange {
      body()
      // Inside an outer `changing` on this thread, that one delivers on its way out.
      return changeDepth == 1 && outbox.claimSchedule()
    }
    guard schedules else { return }
    delivery.schedule { [weak self] in
      guard let self else { return }
      lock.withLock { outbox.scheduledDeliveryStarts() }
      deliverPendingChanges()
    }
  }

  // Compiled for the commonest setting types too: the generic body checks the type first and runs
  // the specialized one, whose callees (the lock, the outbox, the listeners) are specialized with it.
  // Without it every change took run-time type look-ups and indirect value copies: one watching
  // process of a `Shared<Int>` spent 1-16 % (10 % on average) more CPU per change (two watchers
  // of one file side by side).
  // A value of another type takes the generic path, as before.
  /// Delivers queued changes on this thread, unless this thread still holds `lock` (it delivers
  /// when it lets go) or another thread is delivering (it takes these too, in order).
  @_specialize(where Value == Int)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  @_specialize(where Value == String)
  func deliverPendingChanges() {
    var batch = OutboxBatch<Value>()
    var isTaken = lock.withLock { changeDepth == 0 && outbox.beginDelivery(into: &batch) }
    while isTaken {
      deliver(batch)
      batch.removeAll()
      isTaken = lock.withLock { outbox.continueDelivery(into: &batch) }
    }
  }

  /// Tells Observation and the listeners, and hands saves to the key, in order, with no lock
  /// held.
  private func deliver(_ batch: OutboxBatch<Value>) {
    // By index: an iterator or an optional of a generic value is a type formed per write.
    var valueIndex = 0
    for entry in batch.entries {
      switch entry {
      case let .value(sequence, _, carriesValue):
        announceChange(of: .value)
        if carriesValue {
          batch.listeners?.deliver(batch.values[valueIndex], committedAs: sequence)
          valueIndex += 1
        }
      case let .property(property):
        announceChange(of: property)
      case let .initialValue(id):
        batch.listeners?.deliverInitialValue(batch.values[valueIndex], to: id)
        valueIndex += 1
      case .save:
        saveThroughKey(batch.values[valueIndex])
        valueIndex += 1
      }
    }
  }
}
