import ArgumentParser
import IssueReporting
import SharedState

/// How the package's command-line programs (`shared-state`, `shared-demo`) run their command
/// line: each failure is reported once, as one sentence, and changes are printed where they
/// arrive.
public enum CommandLineProgram {
  /// Parses the process's arguments with `root`, runs the chosen command, and exits with its
  /// status.
  ///
  /// - Parameters:
  ///   - root: The program's root command.
  ///   - usageStatus: The status of a command line that does not parse, when the program
  ///     documents one other than argument-parser's own (`EX_USAGE`, 64).
  public static func run(_ root: any ParsableCommand.Type, usageStatus: ExitCode? = nil) async -> Never {
    // The programs report every failure themselves; the library's runtime warnings would say
    // the same thing a second time.
    IssueReporters.current = []
    // No command is main-actor UI code: a watching command prints each change on the thread
    // that brings it, at once, and the terminal UI reads changes through async sequences. The
    // main queue's hop would only add latency.
    SharedChangeDelivery.default = .immediate
    do {
      var command = try root.parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
      root.exit()
    } catch {
      if let usageStatus, root.exitCode(for: error) == .validationFailure {
        let message = root.fullMessage(for: error)
        if !message.isEmpty { Output.error(message) }
        root.exit(withError: usageStatus)
      }
      root.exit(withError: error)
    }
  }
}
