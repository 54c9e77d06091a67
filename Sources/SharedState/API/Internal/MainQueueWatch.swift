import Dispatch
import Foundation
import Synchronization

/// Notices a delivery that waits too long for the main queue (invariant 9: never silent, never
/// parked), and tells the program, on standard error, which of two very different things is
/// happening:
///
/// - **The main actor is busy.** The program runs the main queue, but something on it has run
///   for seconds: the change arrives when it ends, and nothing needs to change in the program.
///   Told once per process.
/// - **The main queue is never run** (a synchronous `main` that blocks). The change would wait
///   for ever: the program must run the main queue, or, only when no observer is main-actor code,
///   choose ``SharedChangeDelivery/immediate``. Told once per process.
///
/// The advice never suggests delivering changes off the main actor to a program that may have
/// main-actor observers: Swift 6 traps such a closure called elsewhere (invariant 11).
///
/// What tells them apart is evidence, not the wait alone: a delivery of this watch that has run
/// on the main queue before (the program runs it), or the main thread as the kernel shows it
/// (``MainThreadActivity``): computing, parked by `dispatch_main()` (whose threads then run the
/// main queue), or waiting for something else without ever having run the queue.
final class MainQueueWatch: Sendable {
  static let shared = MainQueueWatch()

  /// How long a scheduled delivery may wait before the program is told.
  private let patience: DispatchTimeInterval = .seconds(2)
  /// Where late deliveries are looked into, one at a time, off the program's threads (a look
  /// at the main thread takes 200 ms).
  private let inquiries = DispatchQueue(label: "SharedState.MainQueueWatch")
  /// The deliveries scheduled and not yet run, counted by their serial number; what is known of
  /// the main queue; and what the program was told.
  private let state = Mutex(State())

  private struct State {
    var nextSerial: UInt64 = 0
    var waiting: Set<UInt64> = []
    /// A delivery of this watch has run on the main queue: the program runs it.
    var hasRun = false
    var hasToldBusy = false
    var hasToldNotRun = false
  }

  /// Why a delivery is late.
  enum Verdict: Equatable {
    /// The main actor is busy; the evidence that the main queue runs, or will.
    case busy(Evidence)
    /// The main thread waits for something else and has not run the main queue since changes
    /// began to arrive.
    case notRun
  }

  /// What shows that a late delivery's main queue is busy rather than never run.
  enum Evidence: Equatable {
    /// A delivery has run on the main queue before.
    case ranBefore
    /// `dispatch_main()` parked the main thread: Dispatch's threads run the main queue.
    case runByDispatch
    /// The main thread computes, and has not run the main queue so far.
    case mainThreadComputing
  }

  /// Schedules `work` on the main queue and looks, `patience` later, whether it ran.
  func delivery(scheduled work: @escaping @Sendable () -> Void) {
    let serial = state.withLock { state in
      defer { state.nextSerial += 1 }
      state.waiting.insert(state.nextSerial)
      return state.nextSerial
    }
    DispatchQueue.main.async { [self] in
      state.withLock { state in
        state.waiting.remove(serial)
        state.hasRun = true
      }
      work()
    }
    inquiries.asyncAfter(deadline: .now() + patience) { [self] in inquire(serial) }
  }

  /// Looks into the delivery `serial` if it is still waiting, and tells the program why, unless
  /// it was told already.
  private func inquire(_ serial: UInt64) {
    let (isLate, hasRun, isSettled) = state.withLock { state in
      (state.waiting.contains(serial), state.hasRun, state.hasToldNotRun || (state.hasRun && state.hasToldBusy))
    }
    guard isLate, !isSettled else { return }
    let verdict: Verdict =
      if hasRun {
        .busy(.ranBefore)
      } else {
        switch MainThreadActivity.observe() {
        case .parkedByDispatch: .busy(.runByDispatch)
        case .running: .busy(.mainThreadComputing)
        // Without /proc there is no sign of work: what the wait alone suggests.
        case .waiting, .unknown: .notRun
        }
      }
    let tells = state.withLock { state in
      // It ran while the main thread was looked at: nothing to tell.
      guard state.waiting.contains(serial) else { return false }
      switch verdict {
      case .busy:
        defer { state.hasToldBusy = true }
        return !state.hasToldBusy
      case .notRun:
        defer { state.hasToldNotRun = true }
        return !state.hasToldNotRun
      }
    }
    if tells { FileHandle.standardError.write(Data((Self.message(for: verdict) + "\n").utf8)) }
    // A main thread that computes may still turn out never to run the queue: look again.
    if verdict == .busy(.mainThreadComputing) {
      inquiries.asyncAfter(deadline: .now() + patience) { [self] in inquire(serial) }
    }
  }

  /// The one sentence the program is told.
  static func message(for verdict: Verdict) -> String {
    switch verdict {
    case .busy(.ranBefore), .busy(.runByDispatch):
      let how = verdict == .busy(.ranBefore) ? "this program runs the main queue" : "this program runs the main queue (through dispatchMain() or an async main)"
      return """
        SharedState: a change from another process has waited 2 s for the main actor, which is \
        busy: \(how), and the work on it now has taken 2 s or more; the change will arrive when \
        the main actor is free (long work on the main actor delays every change).
        """
    case .busy(.mainThreadComputing):
      return """
        SharedState: a change from another process has waited 2 s for the main queue, and the \
        main thread is busy computing and has not run that queue so far; the change will arrive \
        when it does (an async main, dispatchMain(), a run loop, or SharedStateGLib in a GTK \
        program runs it).
        """
    case .notRun:
      return """
        SharedState: a change from another process has waited 2 s for the main queue, which this \
        program does not run (it has not run it since changes began to arrive, and its main \
        thread is not computing); run the main queue (an async main, dispatchMain(), \
        RunLoop.main.run(), or SharedStateGLib in a GTK program), or, only if no observer of \
        shared state is main-actor code, set `SharedChangeDelivery.default = .immediate` at \
        start-up.
        """
    }
  }
}
