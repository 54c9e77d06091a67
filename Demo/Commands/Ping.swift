import ArgumentParser
import Foundation
import SharedStateCommandLine

/// `shared-demo ping`: writes timestamps, for measuring how fast writes reach other processes.
struct Ping: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Store the current Unix time in nanoseconds, N times, pausing between writes; a 'watch' elsewhere then shows each write's latency."
  )

  @OptionGroup var storage: StorageOptions

  @Option(help: "How many writes to make.")
  var count = 1_000

  @Option(help: "The pause between writes, in microseconds.")
  var intervalMicroseconds = 2_000

  func run() async throws {
    try await reportingFailure {
      let value = try storage.openInteger()
      for _ in 0..<count {
        value.withLock { $0 = Int(Output.unixNanoseconds()) }
        if let error = value.saveError {
          throw CommandError(String(describing: error))
        }
        try await Task.sleep(nanoseconds: UInt64(intervalMicroseconds) * 1_000)
      }
      Output.line("ok \(count)")
    }
  }
}
