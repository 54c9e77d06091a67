import Foundation
import NIOCore
import PostgresNIO

/// When one operation must have finished waiting for the server, and the timeout it came from
/// (for the sentence that says it passed).
struct Deadline: Sendable {
  let instant: NIODeadline
  let timeout: TimeAmount

  /// The time left, at most `slice`; zero once passed.
  func remaining(atMost slice: TimeAmount) -> TimeAmount {
    max(.zero, min(slice, instant - .now()))
  }

  var hasPassed: Bool { instant <= .now() }
}

/// The server did not answer in time.
struct ServerTimeout: Error, CustomStringConvertible {
  let timeout: TimeAmount

  var description: String {
    "the server did not answer within \(Self.seconds(timeout)), and may be stopped, overloaded or out of reach"
  }

  /// `3 s`, `2.5 s`, `0.25 s`.
  static func seconds(_ amount: TimeAmount) -> String {
    let milliseconds = amount.nanoseconds / 1_000_000
    var text = String(milliseconds / 1000)
    if milliseconds % 1000 != 0 {
      var fraction = String(milliseconds % 1000)
      fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "." + fraction
    }
    return text + " s"
  }
}

/// The listening connection closed, or there is none right now.
struct ConnectionLost: Error, CustomStringConvertible {
  var description: String { "the server closed the connection" }
}

extension EventLoopFuture where Value: Sendable {
  /// Waits for the result of a query on `connection`, and gives up when the connection closes
  /// first (postgres-nio was seen leaving a query's future pending for good when the server
  /// shut down under it) or when `deadline` passes (a server that stopped answering): then the
  /// connection is closed, and ``ServerTimeout`` thrown. No call of this library may wait
  /// forever.
  func wait(on connection: PostgresConnection, by deadline: Deadline) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    whenComplete { _ in done.signal() }
    while done.wait(timeout: .now() + .nanoseconds(Int(deadline.remaining(atMost: .milliseconds(100)).nanoseconds))) == .timedOut {
      if connection.isClosed {
        // One last look: it may have completed just as the connection closed.
        if done.wait(timeout: .now() + .milliseconds(100)) == .success { break }
        throw ConnectionLost()
      }
      if deadline.hasPassed {
        connection.closeInBackground()
        throw ServerTimeout(timeout: deadline.timeout)
      }
    }
    return try wait()
  }

  /// Waits for the result, and throws ``ServerTimeout`` when `deadline` passes first.
  func wait(by deadline: Deadline) throws -> Value {
    let done = DispatchSemaphore(value: 0)
    whenComplete { _ in done.signal() }
    while done.wait(timeout: .now() + .nanoseconds(Int(deadline.remaining(atMost: .milliseconds(100)).nanoseconds))) == .timedOut {
      if deadline.hasPassed { throw ServerTimeout(timeout: deadline.timeout) }
    }
    return try wait()
  }
}
