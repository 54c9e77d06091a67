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

  func start() {
    cancellable = count.publisher.sink { [weak self] value in
      guard let self else { return }
      seen.append(value)
      line("value \(value) \(place())")
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
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
  let policies = tasks.compactMap { task -> String? in
    let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
    guard name?.trimmingCharacters(in: .whitespacesAndNewlines) == "SharedState", let id = Int32(task) else {
      return nil
    }
    return policy(ofTask: id)
  }
  return Set(policies).sorted().joined(separator: ",")
}

/// ``libraryThreadPolicies()`` once a library thread runs under the batch policy (the reading
/// thread, once started), or after five seconds, whichever comes first.
@Sendable func settledLibraryThreadPolicies() -> String {
  for _ in 0..<500 {
    let policies = libraryThreadPolicies()
    if policies.contains("batch") { return policies }
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
case "blocked":
  let observer = follow(until: nil)
  line("ready")
  withExtendedLifetime(observer) { while true { sleep(1) } }
default:
  FileHandle.standardError.write(Data("delivery-probe: unknown mode \(mode)\n".utf8))
  exit(2)
}
