import Foundation

/// Runs a program under `strace` with each of its `renameat2` calls (and its threads') returning
/// only some time after the rename is done: a process held between its exchange and what
/// follows, for the tests of what others see meanwhile.
enum HeldRenames {
  static let strace = URL(fileURLWithPath: "/usr/bin/strace")

  /// `strace`'s arguments to run `command` with each `renameat2` returning `microseconds` late.
  static func arguments(delayingBy microseconds: Int, _ command: [String]) -> [String] {
    ["-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat2", "-e", "inject=renameat2:delay_exit=\(microseconds)"] + command
  }

  /// `strace`'s arguments to run `command` with each `renameat2` held `microseconds` before it
  /// is made.
  static func arguments(holdingBeforeBy microseconds: Int, _ command: [String]) -> [String] {
    ["-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat2", "-e", "inject=renameat2:delay_enter=\(microseconds)"] + command
  }

  /// Whether `strace` can run a program here and delay its system calls.
  static let areAvailable: Bool = {
    guard FileManager.default.isExecutableFile(atPath: strace.path) else { return false }
    let probe = Process()
    probe.executableURL = strace
    probe.arguments = arguments(delayingBy: 1, ["/bin/true"])
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
  }()
}
