import Dispatch
import Foundation
import Synchronization

/// Notices a main queue that does not run (invariant 9: never silent, never parked): a delivery
/// scheduled on it that has not run within ``patience`` makes the library say so, once per
/// process, on standard error.
final class MainQueueWatch: Sendable {
  static let shared = MainQueueWatch()

  /// How long a scheduled delivery may wait before the program is told.
  private let patience: DispatchTimeInterval = .seconds(2)
  /// The deliveries scheduled and not yet run, counted by their serial number; and whether the
  /// program was told.
  private let state = Mutex(State())

  private struct State {
    var nextSerial: UInt64 = 0
    var waiting: Set<UInt64> = []
    var hasWarned = false
  }

  /// Schedules `work` on the main queue and checks, `patience` later, that it ran.
  func delivery(scheduled work: @escaping @Sendable () -> Void) {
    let serial = state.withLock { state in
      defer { state.nextSerial += 1 }
      state.waiting.insert(state.nextSerial)
      return state.nextSerial
    }
    DispatchQueue.main.async { [self] in
      _ = state.withLock { $0.waiting.remove(serial) }
      work()
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + patience) { [self] in
      let tells = state.withLock { state in
        guard state.waiting.contains(serial), !state.hasWarned else { return false }
        state.hasWarned = true
        return true
      }
      if tells { Self.warn() }
    }
  }

  private static func warn() {
    let message = """
      SharedState: a change from another process has waited 2 s for the main queue, which this \
      program does not run; set `SharedChangeDelivery.default = .immediate` at start-up (or run \
      the main queue: an async main, dispatchMain(), or SharedStateGLib in a GTK program).

      """
    FileHandle.standardError.write(Data(message.utf8))
  }
}
