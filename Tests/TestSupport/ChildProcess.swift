import CTestSupport
import Foundation
import Synchronization

/// A program the tests start, and its exit: `posix_spawn` and `waitpid`, without Foundation's
/// `Process`.
///
/// Every test in this process may start programs at the same moment, some of them long-lived (a
/// watcher, a PostgreSQL server). Three things make that safe here:
/// - the child closes every descriptor above the standard three before the program runs, so it
///   never holds another test's pipe open (a reader would then wait for the end of that pipe as
///   long as the long-lived program lives);
/// - every signal is unblocked and at its default in the child: the threads Swift concurrency
///   runs on block nearly all of them, and a child inherits that mask (a server started with
///   SIGTERM blocked would not end when told to);
/// - the exit is taken by a thread of its own blocked in `waitid`, not by a SIGCHLD handler that
///   can miss a child when many end at once.
package final class ChildProcess: Sendable {
  /// Where a standard stream of the child goes.
  package enum Destination {
    /// This process's own stream of the same number.
    case inherited
    /// A descriptor of this process, duplicated onto the stream in the child.
    case descriptor(Int32)
    /// A new file the child creates itself (never an existing entry, nor through a link: the
    /// temporary directory is shared with other users).
    case file(String)
  }

  /// The error when the program cannot be started.
  package struct SpawnFailed: Error, CustomStringConvertible {
    /// The program, or what else failed (`pipe`).
    package let path: String
    /// The `errno` value.
    package let code: Int32

    /// Creates the error for `path`, with the `errno` value `code`.
    package init(path: String, code: Int32) {
      self.path = path
      self.code = code
    }

    /// `cannot start PATH: REASON`.
    package var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
  }

  /// The child's process identifier, which is also its process group's.
  package let processIdentifier: pid_t
  /// `nil` while the child runs; its status once it has been reaped. Signals are sent under this
  /// lock, so a reaped child's identifier, which the system may give to another program, is
  /// never signalled.
  private let reapedStatus = Mutex<Int32?>(nil)
  private let exits: AsyncStream<Int32>
  /// Signalled once the child has been reaped, for waiting without an executor.
  private let reaped = DispatchSemaphore(value: 0)

  /// Starts `path` with `arguments`; standard input is `/dev/null`. `error` is set up after
  /// `output`, so `.descriptor(1)` sends it wherever `output` goes. The program's environment
  /// is `environment`, or this process's when `nil`.
  package init(
    _ path: String,
    _ arguments: [String],
    output: Destination,
    error: Destination,
    environment: [String: String]? = nil
  ) throws {
    processIdentifier = try Self.spawn(path, arguments, output: output, error: error, environment: environment)
    let (exits, exit) = AsyncStream<Int32>.makeStream(bufferingPolicy: .unbounded)
    self.exits = exits
    // The thread keeps this object alive until the child is reaped.
    Thread.detachNewThread { [self] in
      let status = reap()
      reaped.signal()
      exit.yield(status)
      exit.finish()
    }
  }

  /// Starts the program: every signal unblocked and at its default, in a process group of its
  /// own, standard input from `/dev/null`, every descriptor above the standard three closed.
  private static func spawn(
    _ path: String,
    _ arguments: [String],
    output: Destination,
    error: Destination,
    environment: [String: String]?
  ) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    // A process group of its own, so that ending it can end what it started.
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)
    )

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    for (stream, destination) in [(Int32(1), output), (2, error)] {
      switch destination {
      case .inherited:
        break
      case .descriptor(let descriptor):
        posix_spawn_file_actions_adddup2(&actions, descriptor, stream)
      case .file(let path):
        posix_spawn_file_actions_addopen(&actions, stream, path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
      }
    }
    guard test_support_spawn_closes_from(&actions, 3) == 0 else {
      throw SpawnFailed(path: path, code: errno)
    }

    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let variables = environment.map { $0.map { strdup("\($0)=\($1)") } + [nil] }
    defer { variables?.forEach { free($0) } }
    var pid = pid_t()
    let spawned =
      if let variables {
        posix_spawn(&pid, path, &actions, &attributes, argv, variables)
      } else {
        posix_spawn(&pid, path, &actions, &attributes, argv, environ)
      }
    guard spawned == 0 else { throw SpawnFailed(path: path, code: spawned) }
    return pid
  }

  /// Waits for the child to end and reaps it.
  private func reap() -> Int32 {
    // Wait without reaping, then reap under the lock that `signal` takes.
    var info = siginfo_t()
    while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
    return reapedStatus.withLock { reaped in
      var raw: Int32 = 0
      while waitpid(processIdentifier, &raw, 0) < 0, errno == EINTR {}
      let status = Self.exitStatus(raw)
      reaped = status
      return status
    }
  }

  /// The exit status as a shell reports it: the program's own, or 128 + the signal that ended it.
  private static func exitStatus(_ raw: Int32) -> Int32 {
    let signal = raw & 0x7F
    return signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
  }

  /// Waits for the program to end and returns its exit status.
  package func waitForExit() async -> Int32 {
    if let status = reapedStatus.withLock({ $0 }) { return status }
    for await status in exits { return status }
    // The stream ends only after yielding, or when a timed-out waiter cancelled it.
    return reapedStatus.withLock { $0 } ?? -1
  }

  /// Waits for the program to end, blocking the calling thread, and returns its exit status.
  package func waitUntilExit() -> Int32 {
    reaped.wait()
    // Signalled once: passed on to the next waiter.
    reaped.signal()
    return reapedStatus.withLock { $0 } ?? -1
  }

  /// Sends `signal`, unless the program has ended.
  package func signal(_ signal: Int32) {
    reapedStatus.withLock { reaped in
      if reaped == nil { _ = kill(processIdentifier, signal) }
    }
  }

  /// Sends `signal` to the program and every process it started (its process group), unless
  /// the program has ended.
  package func signalGroup(_ signal: Int32) {
    reapedStatus.withLock { reaped in
      if reaped == nil { _ = kill(-processIdentifier, signal) }
    }
  }

  /// Runs a program to its end, blocking the calling thread, and returns its exit status and
  /// what it printed on standard output and error together.
  @discardableResult
  package static func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
    // A file, not a pipe: nothing here needs the output before the end.
    let outputPath = FileManager.default.temporaryDirectory
      .appendingPathComponent("sharedstate-child-\(UUID().uuidString)").path
    defer { unlink(outputPath) }
    let child: ChildProcess
    do {
      child = try ChildProcess(path, arguments, output: .file(outputPath), error: .descriptor(1))
    } catch {
      return (-1, "\(error)")
    }
    let status = child.waitUntilExit()
    let output = FileManager.default.contents(atPath: outputPath) ?? Data()
    return (status, String(decoding: output, as: UTF8.self))
  }
}
