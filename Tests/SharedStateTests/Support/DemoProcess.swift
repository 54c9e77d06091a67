import CTestSupport
import Foundation
import Testing
import TestSupport

/// A running `shared-demo` (or other) process whose output a test reads line by line, waiting
/// for each line with a timeout.
final class DemoProcess: Sendable {
  /// The `shared-demo` executable the package built beside the tests.
  static let demoExecutable: URL = {
    if let path = ProcessInfo.processInfo.environment["SHARED_DEMO_PATH"] {
      return URL(fileURLWithPath: path)
    }
    // The test bundle lives in the build directory, beside the package's executables.
    return URL(fileURLWithPath: CommandLine.arguments[0])
      .deletingLastPathComponent()
      .appendingPathComponent("shared-demo")
  }()

  let arguments: [String]
  private let child: ChildProcess
  private let standardOutput: LineReader
  private let standardError: LineReader

  /// Starts `shared-demo` with `arguments`.
  convenience init(_ arguments: String...) throws {
    try self.init(executable: Self.demoExecutable, arguments: arguments)
  }

  /// Starts a shell command, as a user would type it.
  static func shell(_ command: String) throws -> DemoProcess {
    try DemoProcess(executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", command])
  }

  init(executable: URL, arguments: [String]) throws {
    self.arguments = arguments
    // Close-on-exec from the start (see ChildProcess): the child gets its own copies of the
    // write ends, and this process closes its copies once the child runs, so that each reader
    // sees the end of its output when the child ends.
    let output = try Self.makePipe()
    let errors: (read: Int32, write: Int32)
    do {
      errors = try Self.makePipe()
    } catch {
      close(output.read)
      close(output.write)
      throw error
    }
    defer {
      close(output.write)
      close(errors.write)
    }
    do {
      child = try ChildProcess(
        executable.path, arguments, output: .descriptor(output.write), error: .descriptor(errors.write)
      )
    } catch {
      close(output.read)
      close(errors.read)
      throw error
    }
    standardOutput = LineReader(output.read)
    standardError = LineReader(errors.read)
  }

  private static func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    guard test_support_close_on_exec_pipe(&ends) == 0 else {
      throw ChildProcess.SpawnFailed(path: "pipe", code: errno)
    }
    return (ends[0], ends[1])
  }

  var processIdentifier: Int32 { child.processIdentifier }

  /// The next line the process prints on standard output.
  func nextLine(seconds: Double = 20) async throws -> String {
    try await standardOutput.nextLine(seconds: seconds, describing: "standard output of \(arguments)")
  }

  /// The next line the process prints on standard error.
  func nextErrorLine(seconds: Double = 20) async throws -> String {
    try await standardError.nextLine(seconds: seconds, describing: "standard error of \(arguments)")
  }

  /// Waits for the process to exit and returns its status (128 + the signal when a signal
  /// ended it).
  @discardableResult
  func waitForExit(seconds: Double = 60) async throws -> Int32 {
    try await withTimeout(seconds: seconds) { [child] in await child.waitForExit() }
  }

  /// Everything printed on standard output so far, after waiting for the process to exit.
  func allOutput(seconds: Double = 60) async throws -> [String] {
    try await waitForExit(seconds: seconds)
    return try await standardOutput.remainingLines(seconds: seconds)
  }

  /// Everything printed on standard error so far, after waiting for the process to exit.
  func allErrors(seconds: Double = 60) async throws -> [String] {
    try await waitForExit(seconds: seconds)
    return try await standardError.remainingLines(seconds: seconds)
  }

  /// Sends a signal, unless the process has ended.
  func kill(_ signal: Int32) {
    child.signal(signal)
  }

  deinit {
    // SIGKILL, to the child's whole process group (a shell's children too): a test that ends
    // early must not leave a worker running, holding files, locks or this process's pipes.
    child.signalGroup(SIGKILL)
    // And waited for: a process still running for a moment after the signal may write once
    // more, and a watcher sees its test's directory removed and makes it again (a key's read
    // makes its file's directory), leaving it behind in the system's temporary directory.
    _ = child.waitUntilExit()
  }
}

/// Splits what a pipe delivers into lines, for reading one at a time.
private final class LineReader: Sendable {
  private let lines: AsyncQueue<String>

  /// Reads `descriptor` to its end on a thread of its own, then closes it.
  init(_ descriptor: Int32) {
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    lines = AsyncQueue(stream)
    // A blocking read on a thread, not a Dispatch source: nothing to miss, nothing to cancel.
    Thread.detachNewThread {
      var pending: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        pending.append(contentsOf: chunk[..<count])
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          continuation.yield(String(decoding: pending[..<newline], as: UTF8.self))
          pending.removeSubrange(...newline)
        }
      }
      close(descriptor)
      if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
      continuation.finish()
    }
  }

  func nextLine(seconds: Double, describing source: String) async throws -> String {
    let next: String?
    do {
      next = try await lines.next(seconds: seconds)
    } catch let timeout as TimedOut {
      throw TimedOut(seconds: timeout.seconds, awaited: "a line on \(source)")
    }
    guard let line = next else { throw EndOfOutput(source: source) }
    return line
  }

  func remainingLines(seconds: Double) async throws -> [String] {
    var result: [String] = []
    while let line = try await lines.next(seconds: seconds) {
      result.append(line)
    }
    return result
  }
}

/// The error for a process that ended its output before the line a test waited for.
struct EndOfOutput: Error, CustomStringConvertible {
  let source: String
  var description: String { "\(source) ended its output." }
}

extension DemoProcess {
  /// Runs a shell command as `nobody` (uid and gid 65534, no other groups), the second user of
  /// the tests of shared directories, and expects it to succeed.
  static func shellAsNobody(_ command: String) async throws {
    let process = try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
      arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", command]
    )
    let status = try await process.waitForExit(seconds: 20)
    let errors = try await process.allErrors()
    #expect(status == 0, "as nobody: \(command): \(errors)")
  }
}
