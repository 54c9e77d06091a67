import CSystemCalls
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Settings and waits of the calling thread, for the library's own threads.
enum CurrentThread {
  /// Names the calling thread for the kernel (`/proc/PID/task/*/comm`, `ps`, `top`, `perf`),
  /// cut at 15 bytes. (Foundation's `Thread.name` does not reach the kernel on Linux.)
  ///
  /// The corresponding C call is `prctl(PR_SET_NAME, name)`.
  static func setName(_ name: String) throws(Errno) {
    try systemCall { shared_state_name_thread(name) }
  }

  /// Sets how late the calling thread's timed sleeps may end (50 µs by default).
  ///
  /// The corresponding C call is `prctl(PR_SET_TIMERSLACK, nanoseconds)`.
  static func setTimerSlack(nanoseconds: UInt) throws(Errno) {
    try systemCall { shared_state_set_timer_slack(nanoseconds) }
  }

  /// Whether the program runs under the kernel's default scheduling policy (`SCHED_OTHER`), not
  /// a real-time one or the batch one, as its main thread does.
  ///
  /// The corresponding C call is `sched_getscheduler(getpid())`.
  static var programSchedulesByDefault: Bool {
    shared_state_program_schedules_by_default() == 1
  }

  /// Puts the calling thread under the kernel's batch policy (`SCHED_BATCH`), or back under the
  /// default one (`SCHED_OTHER`). The two share the CPU alike; a batch thread that wakes does not
  /// preempt the thread running on its core, but waits for its turn. The nice value is kept.
  ///
  /// The corresponding C call is `sched_setscheduler(0, SCHED_BATCH or SCHED_OTHER, …)`.
  static func setBatchScheduling(_ isBatch: Bool) throws(Errno) {
    try systemCall { shared_state_set_batch_scheduling(isBatch ? 1 : 0) }
  }

  /// Runs `body` under the default policy when ``setBatchScheduling(_:)`` put the calling thread
  /// under the batch one, and puts it back after: for the program's code (observers, callbacks)
  /// and for calls that may start threads (Dispatch), which would inherit the batch policy.
  /// Elsewhere `body` runs as it is, with no system call.
  static func withDefaultScheduling<Result>(_ body: () throws -> Result) rethrows -> Result {
    guard shared_state_is_under_batch_scheduling() == 1, (try? setBatchScheduling(false)) != nil else {
      return try body()
    }
    defer { try? setBatchScheduling(true) }
    return try body()
  }

  /// Blocks, in the calling thread, every signal but those a fault raises (`SIGSEGV`, `SIGBUS`,
  /// `SIGFPE`, `SIGILL`, `SIGTRAP`, `SIGSYS`), so that the program's signals go to its own
  /// threads.
  ///
  /// The corresponding C function is `pthread_sigmask(SIG_BLOCK, …)`.
  static func blockAsynchronousSignals() throws(Errno) {
    try systemCallReturningError { shared_state_block_asynchronous_signals() }
  }

  /// Sleeps for `nanoseconds`; a sleep that a signal interrupts goes on for what is left.
  ///
  /// The corresponding C function is `nanosleep`.
  static func sleep(nanoseconds: UInt64) {
    guard nanoseconds > 0 else { return }
    var remaining = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    // An interrupted sleep leaves what is left in `remaining`, which the next try sleeps.
    _ = try? systemCall {
      var request = remaining
      return nanosleep(&request, &remaining)
    }
  }
}
