// shared-glib-probe: a GLib main loop with SharedStateGLib's bridge and delivery, for the tests
// and the GTK benchmark. It reports what arrives where, one line per event on standard output.
//
//   observe FILE                 the bridge, delivery on the default context, an observer of
//                                the Int in FILE; prints "ready V", then "change V …" per change
//   main-actor COUNT             COUNT Task { @MainActor } started from a background thread,
//                                each after the last ran; prints where and how fast they ran
//   idle SECONDS FILE            as observe, then the process's CPU time over SECONDS of idling
//   write FILE VALUE             stores VALUE in FILE with withLock, and exits
//   bench-writer SUITE COUNT MS  COUNT withLock writes of the suite's `last-change`, MS apart,
//                                each stamped with the time inside its withLock
import CGLib
import Foundation
import OpenCombineShim
import SharedDemoSuite
import SharedState
import SharedStateGLib
import Synchronization

/// One line on standard output, written at once (the tests read it as it comes).
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("shared-glib-probe: \(message)\n".utf8))
  exit(2)
}

/// Nanoseconds on the monotonic clock.
func monotonicNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Nanoseconds since the Unix epoch, comparable between processes.
func unixNanoseconds() -> UInt64 {
  var time = timespec()
  clock_gettime(CLOCK_REALTIME, &time)
  return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The CPU time this process has used, user and system, in microseconds.
func cpuMicroseconds() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
    + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
}

/// How many times this process's threads have gone to sleep of their own accord (blocked in a
/// wait that then ended): each is a wake-up. A loop that polls wakes up once per turn, however
/// busy the machine is, where CPU time also grows with the machine's load.
func voluntaryWakeUps() -> Int {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return usage.ru_nvcsw
}

nonisolated var isMainThread: Bool { Thread.isMainThread }

/// Whether Swift's run-time check accepts the current thread as the main actor's.
func mainActorCheckPasses() -> Bool {
  guard isMainThread else { return false }
  MainActor.assumeIsolated {}
  return true
}

/// Opens the Int in `path` and prints each change that reaches its observer: the value
/// delivered, whether the thread owns the default main context (inside the loop), whether it is
/// the main thread, and the value read from the shared state in the callback.
func observe(_ path: String) -> (Shared<Int>, AnyCancellable) {
  let context = GLibMainContext.default
  let shared = Shared<Int>(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: path)))
  let cancellable = shared.publisher.dropFirst().sink { @Sendable value in
    say(
      "change \(value) owner=\(context.isOwner) main=\(isMainThread) "
        + "read=\(shared.wrappedValue) isolated=\(mainActorCheckPasses())"
    )
  }
  return (shared, cancellable)
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fail("usage: shared-glib-probe observe|main-actor|idle|write|bench-writer …") }
let loop = g_main_loop_new(nil, 0)!

switch arguments[1] {
case "observe" where arguments.count == 3:
  GLibMainActor.install()
  SharedChangeDelivery.default = .glibMainContext()
  let observed = observe(arguments[2])
  say("ready \(observed.0.wrappedValue) delivery=\(SharedChangeDelivery.default)")
  g_main_loop_run(loop)
  withExtendedLifetime(observed) {}

case "main-actor" where arguments.count == 3:
  guard let count = Int(arguments[2]), count > 0 else { fail("main-actor COUNT") }
  GLibMainActor.install()
  let context = GLibMainContext.default
  // Started once the loop runs; each task is started only after the last one ran, so each
  // latency is one wake-up of an idle loop.
  Thread.detachNewThread {
    var latencies: [UInt64] = []
    var outside = 0
    for _ in 0..<count {
      let ran = DispatchSemaphore(value: 0)
      let start = monotonicNanoseconds()
      let result = Mutex<(UInt64, Bool)>((0, false))
      Task { @MainActor in
        result.withLock { $0 = (monotonicNanoseconds() - start, context.isOwner && isMainThread) }
        ran.signal()
      }
      guard ran.wait(timeout: .now() + 5) == .success else {
        say("main-actor timed-out")
        exit(1)
      }
      let (latency, inside) = result.withLock { $0 }
      latencies.append(latency)
      if !inside { outside += 1 }
      usleep(2_000)
    }
    latencies.sort()
    let p50 = latencies[latencies.count / 2] / 1_000
    let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)] / 1_000
    say("main-actor runs=\(count) outside-loop=\(outside) p50_us=\(p50) p99_us=\(p99) max_us=\(latencies.last! / 1_000)")
    // DispatchQueue.main too, then end the loop from the main actor.
    DispatchQueue.main.async {
      say("main-queue owner=\(context.isOwner)")
      g_main_loop_quit(g_main_loop_ref(loop))
    }
  }
  g_main_loop_run(loop)

case "idle" where arguments.count == 4:
  guard let seconds = UInt32(arguments[2]) else { fail("idle SECONDS FILE") }
  GLibMainActor.install()
  SharedChangeDelivery.default = .glibMainContext()
  let observed = observe(arguments[3])
  say("ready \(observed.0.wrappedValue)")
  // One second to settle, then the window: two wake-ups of this process's own.
  let start = Mutex<(cpu: Int, wakeUps: Int)>((0, 0))
  Task { @MainActor in
    try await Task.sleep(for: .seconds(1))
    start.withLock { $0 = (cpuMicroseconds(), voluntaryWakeUps()) }
    try await Task.sleep(for: .seconds(Int(seconds)))
    let (cpu, wakeUps) = start.withLock { $0 }
    let used = cpuMicroseconds() - cpu
    say("idle cpu_us=\(used) wakeups=\(voluntaryWakeUps() - wakeUps) seconds=\(seconds)")
    exit(0)
  }
  g_main_loop_run(loop)
  withExtendedLifetime(observed) {}

case "write" where arguments.count == 4:
  guard let value = Int(arguments[3]) else { fail("write FILE VALUE") }
  SharedChangeDelivery.default = .immediate
  let shared = Shared<Int>(wrappedValue: 0, .fileStorage(URL(fileURLWithPath: arguments[2])))
  shared.withLock { $0 = value }
  if let error = shared.saveError { fail("\(error)") }

case "bench-writer" where arguments.count == 5:
  guard let count = Int(arguments[3]), let milliseconds = UInt32(arguments[4]) else {
    fail("bench-writer SUITE COUNT MS")
  }
  SharedChangeDelivery.default = .immediate
  let suite = AppStorageSuite(directory: URL(fileURLWithPath: arguments[2]))
  let lastChange = Shared<LastChange?>(wrappedValue: nil, .appStorage("last-change", store: suite))
  for _ in 0..<count {
    lastChange.recordChange(by: getpid(), now: unixNanoseconds)
    usleep(milliseconds * 1_000)
  }
  say("wrote \(count)")

default:
  fail("unknown command: \(arguments.dropFirst().joined(separator: " "))")
}
