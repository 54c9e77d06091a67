import ArgumentParser

/// The exit statuses of the command-line tools, one per kind of outcome, so that a script can
/// tell them apart.
public enum CommandExitStatus: Int32, Sendable, CaseIterable {
  /// The command did what was asked.
  case success = 0
  /// The command failed: a value that cannot be read or written, bad JSON, an unknown suite,
  /// a server that does not answer. One sentence on standard error says why.
  case failure = 1
  /// The command line was wrong: an unknown option, a missing argument, options that do not go
  /// together. Argument parsing reports it with the usage.
  case usage = 2
  /// `get` found no value stored under the key (nothing was ever set, or it was reset).
  case noValue = 3

  /// The status as argument-parser's exit code.
  public var exitCode: ExitCode { ExitCode(rawValue) }
}
