import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What the process's first thread (the main thread of a synchronous `main`) is doing, as the
/// kernel shows it in `/proc/self/task/PID/stat` and `…/syscall`: enough to tell a main thread
/// that computes from one that waits, and one that `dispatch_main()` parked for good.
enum MainThreadActivity: Equatable {
  /// It runs code (or is ready to, and waits only for a processor).
  case running
  /// `dispatch_main()` (which an `async` `main` calls too) parked it for good in `sigsuspend`:
  /// Dispatch's own threads run the main queue from then on.
  case parkedByDispatch
  /// It waits for something else: a sleep, a read, a lock, a semaphore.
  case waiting
  /// `/proc` could not be read.
  case unknown

  /// One look at the thread.
  struct Sample {
    /// The state letter of `stat` (`R` running or runnable, `S` sleeping, `D` waiting on a
    /// disk, …).
    var state: Character
    /// Clock ticks spent on a processor, user and system.
    var ticks: Int
    /// The system call it is blocked in, or `nil` while it runs.
    var systemCall: Int?
  }

  /// `rt_sigsuspend`'s number, where `dispatch_main()` parks the thread.
  private static let suspendCall: Int? = {
    #if arch(x86_64)
      return 130
    #elseif arch(arm64)
      return 133
    #else
      return nil
    #endif
  }()

  /// Watches the thread for `milliseconds` (`looks` looks, the first at once): `running` when it
  /// was runnable at most looks or spent at least a quarter of the time on a processor (a
  /// computing thread on a loaded machine waits for a processor but stays runnable),
  /// `parkedByDispatch` when it sits in `sigsuspend`, `waiting` otherwise. Blocks the caller for
  /// `milliseconds`.
  static func observe(milliseconds: Int = 200, looks: Int = 5) -> MainThreadActivity {
    guard let first = sample() else { return .unknown }
    if let call = first.systemCall, call == suspendCall { return .parkedByDispatch }
    let looks = max(2, looks)
    var runnable = first.state == "R" ? 1 : 0
    var last = first
    for _ in 1..<looks {
      usleep(useconds_t(milliseconds * 1000 / (looks - 1)))
      guard let next = sample() else { return .unknown }
      if next.state == "R" { runnable += 1 }
      last = next
    }
    let busyTicks = Int(sysconf(Int32(_SC_CLK_TCK))) * milliseconds / 4000
    return runnable * 2 > looks || last.ticks - first.ticks >= max(1, busyTicks) ? .running : .waiting
  }

  /// One look at the thread, or `nil` when `/proc` cannot be read.
  static func sample() -> Sample? {
    let task = "/proc/self/task/\(getpid())"
    guard let stat = read(task + "/stat"), let close = stat.lastIndex(of: ")") else { return nil }
    // After the command's closing parenthesis: state (field 3), …, utime (14), stime (15).
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let state = fields[0].first, let user = Int(fields[11]), let system = Int(fields[12]) else {
      return nil
    }
    // "running", or the call's number and its arguments ("-1 …": blocked outside a call).
    let call = read(task + "/syscall")?.split(separator: " ").first.flatMap { Int($0) }
    return Sample(state: state, ticks: user + system, systemCall: call)
  }

  /// The whole of a small `/proc` file (their size shows as 0, so read until the end).
  private static func read(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while true {
      let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
  }
}
