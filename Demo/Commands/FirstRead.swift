import ArgumentParser
import Foundation
import SharedState
import SharedStateCommandLine

/// `shared-demo first-read` (hidden, for the tests): opens a key (of a suite, or a file) with a
/// default of the caller's choosing and prints the value it reads, so that tests can start
/// several processes with different defaults on a key nobody has stored yet and compare what
/// each one reads, and what the file holds afterwards.
struct FirstRead: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "first-read",
    abstract: "Open a key with the given default and print the value read, as compact JSON.",
    shouldDisplay: false
  )

  @OptionGroup var storage: StorageOptions

  @Option(help: "The key's default value, a whole number.")
  var `default`: Int

  @Option(help: "Start at this Unix time in nanoseconds, so that several processes start together.")
  var startAt: UInt64?

  @Option(help: "After reading, write this whole number (with withLock), so that tests can race a write against first reads.")
  var thenWrite: Int?

  func run() async throws {
    try await reportingFailure {
      if let startAt { try await Clock.sleep(untilUnixNanoseconds: startAt) }
      let shared = Shared<Int>(wrappedValue: self.default, storage.key())
      if let error = shared.loadError {
        throw CommandError(storage.sentence(for: error))
      }
      Output.line(String(shared.wrappedValue))
      if let thenWrite {
        shared.withLock { $0 = thenWrite }
        if let error = shared.saveError { throw CommandError(String(describing: error)) }
      }
    }
  }
}
