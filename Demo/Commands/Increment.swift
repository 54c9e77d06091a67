import ArgumentParser
import Foundation
import SharedStateCommandLine

/// `shared-demo increment`: adds one to a stored integer, atomically across processes.
struct Increment: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Add 1 to the integer stored in the file (0 when there is none), N times, each with withLock; then print 'ok N'."
  )

  @OptionGroup var storage: StorageOptions

  @Option(help: "How many increments to make.")
  var times = 1

  @Option(help: "Start at this Unix time in nanoseconds, so that several processes start together.")
  var startAt: UInt64?

  @Flag(help: "Print 'done K' after the K-th increment is stored.")
  var reportEach = false

  @OptionGroup var observer: ObserverOptions

  func validate() throws {
    guard times >= 0 else { throw ValidationError("--times must be 0 or more.") }
  }

  func run() async throws {
    try await reportingFailure {
      let value = storage.value
      let counter = try value.openInteger()
      let observers = observer.observe(counter, storage: storage)
      defer { withExtendedLifetime(observers.cancellables) {} }
      if let startAt { try await Clock.sleep(untilUnixNanoseconds: startAt) }
      // Read once: an argument's property wrapper does work on every read, and this loop is
      // what the benchmarks time.
      let reportsEach = reportEach
      var completed = 0
      for _ in 0..<times {
        try value.add(1, to: counter)
        if reportsEach { Output.line("done \(completed + 1)") }
        completed += 1
      }
      try await observers.waitUntilHandled(counter.wrappedValue)
      Output.line("ok \(times)")
    }
  }
}

enum Clock {
  /// Sleeps until a wall-clock time.
  static func sleep(untilUnixNanoseconds deadline: UInt64) async throws {
    let now = Output.unixNanoseconds()
    if deadline > now {
      try await Task.sleep(nanoseconds: deadline - now)
    }
  }
}
