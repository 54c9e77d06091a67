import ConcurrencyExtras
import Foundation

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
  private let process: Process
  private let standardOutput: LineReader
  private let standardError: LineReader
  private let exitStatus: AsyncStream<Int32>
  private let knownExitStatus = LockIsolated<Int32?>(nil)

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
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    // Close-on-exec, so that a process that tests start at the same moment does not inherit
    // them: a long-lived one (a watcher) would hold this process's output open, and its reader
    // would wait for the end of it as long as that one lives. The child gets its own copies.
    for handle in [
      outputPipe.fileHandleForReading, outputPipe.fileHandleForWriting,
      errorPipe.fileHandleForReading, errorPipe.fileHandleForWriting,
    ] {
      _ = fcntl(handle.fileDescriptor, F_SETFD, FD_CLOEXEC)
    }
    process.standardOutput = outputPipe
    process.standardError = errorPipe
    process.standardInput = FileHandle.nullDevice
    standardOutput = LineReader(outputPipe.fileHandleForReading)
    standardError = LineReader(errorPipe.fileHandleForReading)
    let (exitStatus, exitContinuation) = AsyncStream<Int32>.makeStream(bufferingPolicy: .unbounded)
    self.exitStatus = exitStatus
    process.terminationHandler = { process in
      exitContinuation.yield(process.terminationStatus)
      exitContinuation.finish()
    }
    try process.run()
    self.process = process
  }

  var processIdentifier: Int32 { process.processIdentifier }

  /// The next line the process prints on standard output.
  func nextLine(seconds: Double = 20) async throws -> String {
    try await standardOutput.nextLine(seconds: seconds, describing: "\(arguments)")
  }

  /// The next line the process prints on standard error.
  func nextErrorLine(seconds: Double = 20) async throws -> String {
    try await standardError.nextLine(seconds: seconds, describing: "\(arguments)")
  }

  /// Waits for the process to exit and returns its status.
  @discardableResult
  func waitForExit(seconds: Double = 60) async throws -> Int32 {
    if let status = knownExitStatus.value { return status }
    let statuses = exitStatus
    let status = try await withTimeout(seconds: seconds) {
      for await status in statuses { return status }
      return -1
    }
    knownExitStatus.setValue(status)
    return status
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

  /// Sends a signal.
  func kill(_ signal: Int32) {
    Foundation.kill(process.processIdentifier, signal)
  }

  deinit {
    // SIGKILL, not SIGTERM: a process started from a thread that blocks signals (Dispatch's
    // workers do) inherits that mask and would ignore SIGTERM, living on until its own timeout
    // while holding whatever descriptors it inherited.
    if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
  }
}

/// Splits what a pipe delivers into lines, for reading one at a time.
private final class LineReader: Sendable {
  private let lines: AsyncQueue<String>

  init(_ handle: FileHandle) {
    let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
    lines = AsyncQueue(stream)
    let pending = LockIsolated(Data())
    handle.readabilityHandler = { handle in
      let chunk = handle.availableData
      if chunk.isEmpty {
        handle.readabilityHandler = nil
        let rest = pending.value
        if !rest.isEmpty { continuation.yield(String(decoding: rest, as: UTF8.self)) }
        continuation.finish()
        return
      }
      pending.withValue { buffer in
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
          continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
          buffer.removeSubrange(buffer.startIndex...newline)
        }
      }
    }
  }

  func nextLine(seconds: Double, describing source: String) async throws -> String {
    guard let line = try await lines.next(seconds: seconds) else { throw EndOfOutput(source: source) }
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
