import Foundation

/// The `shared-state` command the package builds beside the tests, run as a user runs it.
enum SharedStateTool {
  /// The executable, beside `shared-demo`.
  static let executable: URL = DemoProcess.demoExecutable
    .deletingLastPathComponent()
    .appendingPathComponent("shared-state")

  /// Starts `shared-state` with `arguments`, with `XDG_CONFIG_HOME` set to `configurationHome`
  /// when given (the directory where suites named by name live).
  static func start(_ arguments: [String], configurationHome: String? = nil) throws -> DemoProcess {
    var environment = ["LC_ALL=C"]
    if let configurationHome { environment.append("XDG_CONFIG_HOME=\(configurationHome)") }
    return try DemoProcess(
      executable: URL(fileURLWithPath: "/usr/bin/env"),
      arguments: environment + [executable.path] + arguments
    )
  }

  /// What one run printed, and its exit status.
  struct Outcome: Equatable {
    var status: Int32
    var output: [String]
    var errors: [String]
  }

  /// Runs `shared-state` to its end.
  static func run(_ arguments: String..., configurationHome: String? = nil) async throws -> Outcome {
    let process = try start(arguments, configurationHome: configurationHome)
    let status = try await process.waitForExit()
    return Outcome(status: status, output: try await process.allOutput(), errors: try await process.allErrors())
  }
}
