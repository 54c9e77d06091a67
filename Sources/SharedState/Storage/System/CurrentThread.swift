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
