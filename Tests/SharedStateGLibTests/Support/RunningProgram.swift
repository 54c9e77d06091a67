import CTestSupport
import Foundation
import TestSupport
import XCTest

/// A program a test starts (a ``ChildProcess``), whose standard output it reads line by line,
/// waiting for the line it expects with a timeout that fails the test.
final class RunningProgram: @unchecked Sendable {
  // Sendable: `lines`, `ended` and `exitStatus` are read and written only under `condition`'s
  // lock; the rest is fixed at initialisation.
  let description: String
  private let child: ChildProcess
  private let condition = NSCondition()
  private var lines: [String] = []
  private var ended = false
  private var exitStatus: Int32?

  var processIdentifier: pid_t { child.processIdentifier }

  /// A program the package built beside the tests (`SharedGLibProbe`, `shared-demo-gtk`, …).
  static func built(_ name: String) -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
      .appendingPathComponent(name).path
  }

  /// Starts `path` with `arguments` and `environment` added to this process's; standard input is
  /// `/dev/null`, standard error goes to this process's.
  init(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws {
    description = ([path] + arguments).joined(separator: " ")
    var pipe: [Int32] = [0, 0]
    guard test_support_close_on_exec_pipe(&pipe) == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    // The child has its own copy of the write end: the reader sees the end of the output when
    // the child (and whatever it started) ends.
    defer { close(pipe[1]) }
    var variables = ProcessInfo.processInfo.environment
    variables.merge(environment) { $1 }
    do {
      child = try ChildProcess(
        path, arguments, output: .descriptor(pipe[1]), error: .inherited, environment: variables
      )
    } catch {
      close(pipe[0])
      throw error
    }
    let descriptor = pipe[0]
    Thread.detachNewThread { [self] in
      readLines(descriptor)
    }
  }

  private func readLines(_ descriptor: Int32) {
    var pending = Data()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0, errno == EINTR { continue }
      if count <= 0 { break }
      pending.append(contentsOf: buffer[..<count])
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pending[..<newline], as: UTF8.self)
        pending.removeSubrange(...newline)
        condition.withLock {
          lines.append(line)
          condition.broadcast()
        }
      }
    }
    close(descriptor)
    if !pending.isEmpty {
      // The last line, without its newline.
      let line = String(decoding: pending, as: UTF8.self)
      condition.withLock { lines.append(line) }
    }
    let status = child.waitUntilExit()
    condition.withLock {
      ended = true
      exitStatus = status
      condition.broadcast()
    }
  }

  /// Waits for the first line not yet taken that starts with `prefix`, taking it and every line
  /// before it; fails the test and throws when none comes within `seconds`.
  @discardableResult
  func line(
    startingWith prefix: String,
    within seconds: Double = 10,
    file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> String {
    let deadline = Date(timeIntervalSinceNow: seconds)
    return try condition.withLock {
      while true {
        if let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) {
          let found = lines[index]
          lines.removeSubrange(...index)
          return found
        }
        if ended || !condition.wait(until: deadline) {
          let seen = lines.joined(separator: "\n")
          XCTFail(
            "no line starting with \"\(prefix)\" from \(description) within \(seconds) s "
              + "(\(ended ? "it ended" : "still running"); unread lines: \(seen))",
            file: file, line: line
          )
          throw TimedOut()
        }
      }
    }
  }

  /// Waits for the program to end, up to `seconds`, and returns its exit status.
  func exit(within seconds: Double = 30) throws -> Int32 {
    let deadline = Date(timeIntervalSinceNow: seconds)
    return try condition.withLock {
      while !ended {
        if !condition.wait(until: deadline) {
          XCTFail("\(description) did not end within \(seconds) s")
          throw TimedOut()
        }
      }
      return exitStatus ?? -1
    }
  }

  /// Runs a program to its end (up to `seconds`) and returns its exit status and output lines.
  static func run(
    _ path: String,
    _ arguments: [String],
    environment: [String: String] = [:],
    within seconds: Double = 30
  ) throws -> (status: Int32, lines: [String]) {
    let program = try RunningProgram(path, arguments, environment: environment)
    defer { program.terminate() }
    let status = try program.exit(within: seconds)
    return (status, program.condition.withLock { program.lines })
  }

  /// The path of `name` in `PATH` (Debian's own copy first), or `nil`.
  static func find(_ name: String) -> String? {
    let directories = ["/usr/bin"] + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
    return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
  }

  /// Ends the program and what it started (its process group) unless it has ended, and waits.
  func terminate() {
    // Sent only while the child has not been reaped: its identifier is never another program's.
    child.signalGroup(SIGKILL)
    _ = try? exit(within: 10)
  }

  /// The error thrown after a wait failed the test.
  struct TimedOut: Error {}
}
