import ArgumentParser
import SharedStateCommandLine

/// `shared-demo get`: prints the stored value.
struct Get: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the stored value as one line of compact JSON (null when nothing is stored)."
  )

  @OptionGroup var storage: StorageOptions

  func run() async throws {
    try await reportingFailure {
      Output.line(try storage.openJSON().wrappedValue.compactJSON)
    }
  }
}
