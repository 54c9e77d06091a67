// A child program for the delivery tests (DeliveryTests), in the shapes programs that receive
// other processes' changes take. Each follows one file-storage counter and prints `value V main`
// (on the main queue, the main actor's executor) or `value V other` for each value its observer
// receives.
//
//   delivery-probe main-actor FILE LAST   async main; a @MainActor model subscribes to the
//                                         publisher; exits 0 after LAST, printing
//                                         `deliveries N`.
//   delivery-probe immediate FILE LAST    synchronous main that chose .immediate and blocks.
//   delivery-probe blocked FILE           synchronous main that keeps the default and never
//                                         runs the main queue.
//   delivery-probe policies FILE DELIVERY synchronous main with DELIVERY (`immediate`, or
//                                         `custom`, whose schedule runs the work at once and
//                                         prints `schedule POLICY`); prints the scheduling
//                                         policies of the library's threads once they settle
//                                         (`ready library …`), of the thread each value reaches
//                                         and of a thread started there; after a value then 0
//                                         (the file removed), the library's threads again
//                                         (`after library …`), and exits 0.
//   delivery-probe busy FILE              as main-actor, LAST 6; on value 5 the main actor
//                                         prints `busy` and computes until FILE holds 6, then
//                                         3 s more, and prints `free`.
//   delivery-probe busy-start FILE        synchronous main that keeps the default: its main
//                                         thread computes until FILE holds 5, then 3 s more,
//                                         prints `free` and calls dispatchMain(); exits 0
//                                         after value 5.
//   delivery-probe busy-async-start FILE  async main: the main actor opens the counter, then
//                                         computes until FILE holds 5, then 3 s more, prints
//                                         `free` and waits; exits 0 after value 5.
import Foundation
import OpenCombineShim
import SharedState
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  FileHandle.standardError.write(Data("usage: delivery-probe MODE FILE [LAST]\n".utf8))
  exit(2)
}
let mode = arguments[1]
let url = URL(fileURLWithPath: arguments[2])
let last = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0

/// Prints a line at once, from any thread.
@Sendable func line(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Marks Dispatch's main queue, the main actor's executor. With an async `main` on Linux the
/// queue is drained on a thread that is not the process's first (`dispatch_main()` parks that
/// one), so `Thread.isMainThread` cannot tell: the queue's own mark can.
let mainQueueMark = DispatchSpecificKey<Bool>()
DispatchQueue.main.setSpecific(key: mainQueueMark, value: true)

/// `main` when the caller runs on the main queue (the main actor), `other` otherwise.
@Sendable func place() -> String {
  DispatchQueue.getSpecific(key: mainQueueMark) == true ? "main" : "other"
}

/// The model UI code writes: main-actor isolated, its sink closure inferred as main-actor code
/// (Swift 6 checks that at run time when the closure is called).
@MainActor final class Model {
  let count = Shared(wrappedValue: 0, .fileStorage(url))
  var seen: [Int] = []
  var cancellable: AnyCancellable?
  var finished: (() -> Void)?
  /// The last value to wait for.
  var last = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 6
  /// The value on which the main actor computes until the next one is in the file, then 3 s.
  var busyAt: Int?

  func start() {
    cancellable = count.publisher.sink { [weak self] value in
      guard let self else { return }
      seen.append(value)
      line("value \(value) \(place())")
      if value == busyAt {
        line("busy")
        compute(until: value + 1, thenFor: 3)
        line("free")
      }
      if value == last, let finished {
        self.finished = nil
        finished()
      }
    }
  }
}

/// Follows the counter from a synchronous program: the observer is `@Sendable`, not main-actor
/// code, since it runs wherever the delivery puts it.
func follow(until last: Int?) -> AnyCancellable {
  let count = Shared(wrappedValue: 0, .fileStorage(url))
  return count.publisher.sink { @Sendable value in
    line("value \(value) \(place())")
    if let last, value == last { exit(0) }
  }
}

/// Keeps the calling thread computing (on the main actor: keeps it busy) until `url` holds
/// `value`, then for `seconds` more; a minute at most in all.
@Sendable func compute(until value: Int, thenFor seconds: Int) {
  let clock = ContinuousClock()
  let start = clock.now
  var seen: ContinuousClock.Instant?
  var sum = 0
  while start.duration(to: clock.now) < .seconds(60) {
    for index in 0..<100_000 { sum &+= index &* index }
    if let seen {
      if seen.duration(to: clock.now) >= .seconds(seconds) { break }
    } else if let text = try? String(contentsOf: url, encoding: .utf8),
      Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) == value
    {
      seen = clock.now
    }
  }
  // Used, so that the work is not optimised away.
  if sum == 42 { line("") }
}

/// The kernel's scheduling policy of the thread `task` of this process (0: the calling thread).
@Sendable func policy(ofTask task: Int32 = 0) -> String {
  // SCHED_OTHER and SCHED_BATCH, which the C header defines only for _GNU_SOURCE.
  switch sched_getscheduler(task) {
  case 0: "default"
  case 3: "batch"
  case let other: "policy\(other)"
  }
}

/// The policies of the library's threads (named `SharedState`), each once, sorted.
@Sendable func libraryThreadPolicies() -> String {
  Set(libraryThreads().map { policy(ofTask: $0) }).sorted().joined(separator: ",")
}

/// The kernel's IDs of the library's threads (named `SharedState`) that run now.
@Sendable func libraryThreads() -> [Int32] {
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
  return tasks.compactMap { task -> Int32? in
    let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
    guard name?.trimmingCharacters(in: .whitespacesAndNewlines) == "SharedState" else { return nil }
    return Int32(task)
  }
}

/// ``libraryThreadPolicies()`` once the reading thread and the one standing by have started, or
/// after five seconds, whichever comes first.
@Sendable func settledLibraryThreadPolicies() -> String {
  for _ in 0..<500 {
    if libraryThreads().count >= 2 { break }
    usleep(10_000)
  }
  return libraryThreadPolicies()
}

/// The policy of a thread started from the calling one.
@Sendable func policyOfAThreadStartedHere() -> String {
  let started = DispatchSemaphore(value: 0)
  let found = Mutex("")
  let thread = Thread {
    found.withLock { $0 = policy() }
    started.signal()
  }
  thread.start()
  started.wait()
  return found.withLock { $0 }
}

switch mode {
case "main-actor":
  let model = Model()
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    model.finished = { done.resume() }
    model.start()
    line("ready")
  }
  line("deliveries \(model.seen.count)")
case "immediate":
  SharedChangeDelivery.default = .immediate
  let observer = follow(until: last)
  line("ready")
  withExtendedLifetime(observer) { while true { sleep(1) } }
case "policies":
  if arguments.count > 3, arguments[3] == "custom" {
    SharedChangeDelivery.default = .custom("probe") { work in
      line("schedule \(policy())")
      work()
    }
  } else {
    SharedChangeDelivery.default = .immediate
  }
  let removed = DispatchSemaphore(value: 0)
  let sawValue = Mutex(false)
  let count = Shared(wrappedValue: 0, .fileStorage(url))
  let observer = count.publisher.sink { @Sendable value in
    line("value \(value) observer \(policy()) started \(policyOfAThreadStartedHere())")
    let isRemoval = sawValue.withLock { sawValue in
      defer { sawValue = sawValue || value != 0 }
      return sawValue && value == 0
    }
    if isRemoval { removed.signal() }
  }
  line("ready library \(settledLibraryThreadPolicies())")
  if removed.wait(timeout: .now() + 60) == .timedOut { exit(1) }
  line("after library \(settledLibraryThreadPolicies())")
  withExtendedLifetime(observer) { exit(0) }
case "busy":
  let model = Model()
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    model.finished = { done.resume() }
    model.start()
    model.busyAt = 5
    line("ready")
  }
  line("deliveries \(model.seen.count)")
case "busy-start":
  let observer = follow(until: 5)
  line("ready")
  compute(until: 5, thenFor: 3)
  line("free")
  withExtendedLifetime(observer) { dispatchMain() }
case "busy-async-start":
  let model = Model()
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    model.finished = { done.resume() }
    model.last = 5
    model.start()
    line("ready")
    compute(until: 5, thenFor: 3)
    line("free")
  }
case "blocked":
  let observer = follow(until: nil)
  line("ready")
  withExtendedLifetime(observer) { while true { sleep(1) } }
default:
  FileHandle.standardError.write(Data("delivery-probe: unknown mode \(mode)\n".utf8))
  exit(2)
}
