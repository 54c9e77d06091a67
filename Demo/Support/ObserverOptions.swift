import ArgumentParser
import Foundation
import OpenCombineShim
import SharedState
import SharedStateCommandLine
import Synchronization

/// Hidden options of `increment` that give the process an observer of its own value, as a UI's
/// "when this changes, update that" code would be: slow (`--observer-sleep-milliseconds`), or
/// writing to a key (`--observer-target`). The multi-process tests use them to show that one
/// process's observers never hold up another process, nor deadlock with its observers.
struct ObserverOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Observe the value with a publisher sink that sleeps this long on each change (printing 'observer sleeping V' first).", visibility: .hidden))
  var observerSleepMilliseconds: Int?

  @Option(help: ArgumentHelp("Observe the value with a sink that runs a withLock on this state on each change: with --file a file's path, with --suite a key of the same suite.", visibility: .hidden))
  var observerTarget: String?

  @Option(help: ArgumentHelp("The observer's withLock adds this to its target once, the first time the observed value reaches --observer-threshold; otherwise it changes nothing.", visibility: .hidden))
  var observerAdds = 0

  @Option(help: ArgumentHelp("See --observer-adds.", visibility: .hidden))
  var observerThreshold = 100

  /// Starts the observers asked for on `counter`; keep the result for as long as they should
  /// observe.
  func observe(_ counter: Shared<Int>, storage: StorageOptions) -> StartedObservers {
    var observers: [AnyCancellable] = []
    let handled = HandledValue()
    if let observerSleepMilliseconds {
      // The first value is the current one, not a change.
      observers.append(
        counter.publisher.dropFirst().sink { value in
          Output.line("observer sleeping \(value)")
          usleep(UInt32(observerSleepMilliseconds) * 1000)
        }
      )
    }
    if let observerTarget {
      let target = Shared<Int>(wrappedValue: 0, storage.key(named: observerTarget))
      let adds = observerAdds
      let threshold = observerThreshold
      let hasAdded = Atomic(false)
      observers.append(
        counter.publisher.sink { value in
          let addsNow = value >= threshold && !hasAdded.exchange(true, ordering: .relaxed)
          target.withLock { $0 += addsNow ? adds : 0 }
          // The tests count on this one write: when it fails, they say why.
          if addsNow, let error = target.saveError {
            Output.error("observer: adding \(adds) to \(observerTarget) failed: \(error)")
          }
          handled.value.store(value, ordering: .releasing)
        }
      )
    }
    return StartedObservers(cancellables: observers, handled: observerTarget == nil ? nil : handled)
  }
}

/// The last value the writing observer (`--observer-target`) has finished with.
final class HandledValue: Sendable {
  /// `Int.min` until the observer's first call.
  let value = Atomic(Int.min)
}

/// The observers `ObserverOptions.observe` started; they observe for as long as this is kept.
struct StartedObservers {
  let cancellables: [AnyCancellable]
  let handled: HandledValue?

  /// Waits until the writing observer, if there is one, has finished with `value` or a later
  /// one. Changes reach observers after the write that made them returns, so a process that
  /// exited right after its last write could leave its observer's write unmade. The demo's
  /// counters only grow, so a later value is a larger one.
  func waitUntilHandled(_ value: Int, seconds: Int = 30) async throws {
    guard let handled else { return }
    let deadline = ContinuousClock.now + .seconds(seconds)
    while handled.value.load(ordering: .acquiring) < value {
      guard ContinuousClock.now < deadline else {
        throw CommandError("the observer had not heard of \(value) after \(seconds) s")
      }
      // A short poll: the wait is once per process, at its end.
      try await Task.sleep(for: .milliseconds(1))
    }
  }
}

extension StorageOptions {
  /// The key of another value beside this one: with `--file`, the file at `name`; with
  /// `--suite`, the key `name` of the same suite; with `--postgres`, the key `name` there.
  func key<Value: Codable & Sendable>(named name: String) -> any SharedKey<Value> {
    var other = self
    if file != nil { other.file = name } else { other.key = name }
    return other.key()
  }
}
