import ArgumentParser
import SharedState
import SharedStateCommandLine

/// `shared-state`: reads, writes, lists and monitors values stored with SharedState, from a
/// shell, as `gsettings` does for GSettings.
@main
struct SharedStateCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shared-state",
    abstract: "Get, set, reset, list and monitor values that programs share with SharedState.",
    discussion: """
      A value lives in an app-storage suite, under a key: give the suite by name (SUITE is \
      then $XDG_CONFIG_HOME/SUITE, or ~/.config/SUITE when XDG_CONFIG_HOME is unset or \
      relative, as AppStorageSuite(named:) places it) or by path (any SUITE with a '/' in it, \
      such as ./settings or /srv/app/settings). With --postgres URL, SUITE is the namespace of \
      the keys in the server's shared_state table. With --file PATH, the value is the whole \
      file (file storage), and there is no SUITE or KEY.

      Values are JSON, in and out: 'set' takes any JSON value, and every value is printed as \
      one line of compact JSON with sorted keys. Integers beyond 64 bits print as written.

      Errors are one sentence on standard error, after 'shared-state: '. Exit status: \
      0 done; 1 failed (a value that cannot be read or written, JSON that does not parse, an \
      unknown suite, a server that does not answer); 2 wrong command line (usage); 3 'get' \
      found no value stored under the key. 'monitor' runs until it is interrupted.
      """,
    subcommands: [
      Get.self, Set.self, Reset.self, ListKeys.self, ListRecursively.self, Monitor.self, Increment.self,
    ]
  )

  static func main() async {
    // A command line that does not parse exits with 2, as most command-line programs do.
    await CommandLineProgram.run(self, usageStatus: CommandExitStatus.usage.exitCode)
  }
}
