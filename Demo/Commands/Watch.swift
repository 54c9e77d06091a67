import ArgumentParser
import Foundation
import SharedState

/// `shared-demo watch`: prints the value and every change to it, as it happens.
struct Watch: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the value, then one line per change: '<unix-time-in-nanoseconds> <compact JSON>'.",
    discussion: """
      The first line is the value when watching starts. A file that stops decoding is reported \
      on standard error as '<unix-time-in-nanoseconds> error: <sentence>', and watching goes on. \
      Exits 0 after --changes changes, 1 when --timeout passes first.
      """
  )

  @OptionGroup var storage: StorageOptions

  @Option(help: "Exit 0 after this many changes.")
  var changes: Int?

  @Option(help: "Exit 1 when this many seconds pass first.")
  var timeout: Double?

  func run() async throws {
    let shared = Shared<JSONValue>(wrappedValue: .null, storage.key())
    let completed = await withTaskGroup(of: Bool.self) { group in
      group.addTask { await printChanges(of: shared) }
      group.addTask { await printErrors(of: shared) }
      if let timeout {
        group.addTask {
          try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
          return false
        }
      }
      // The first task to finish decides: the change count reached, or the timeout.
      var outcome = false
      for await finished in group {
        outcome = finished
        break
      }
      group.cancelAll()
      return outcome
    }
    if !completed {
      Output.error("shared-demo: watching \(storage.description) timed out after \(timeout ?? 0) seconds.")
      throw ExitCode.failure
    }
  }

  /// Prints the value and its changes; returns `true` after `changes` changes.
  private func printChanges(of shared: Shared<JSONValue>) async -> Bool {
    var seen = -1
    for await value in shared.values {
      Output.line("\(Output.unixNanoseconds()) \(value.compactJSON)")
      seen += 1
      if let changes, seen >= changes { return true }
    }
    return false
  }

  /// Prints each new load error; never finishes on its own.
  private func printErrors(of shared: Shared<JSONValue>) async -> Bool {
    var reported: String?
    while !Task.isCancelled {
      let message = shared.loadError.map { String(describing: $0) }
      if let message, message != reported {
        Output.error("\(Output.unixNanoseconds()) error: \(message)")
      }
      reported = message
      await Observed.nextChange { _ = shared.loadError }
    }
    return false
  }
}
