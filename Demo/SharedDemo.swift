import ArgumentParser
import SharedStateCommandLine
import SharedState

/// `shared-demo`: SharedState's demonstration and scripting tool.
@main
struct SharedDemo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "shared-demo",
    abstract: "Read, write and watch state shared by processes with SharedState.",
    discussion: """
      Every subcommand works on one file of file storage (--file PATH) or one key of an \
      app-storage suite (--suite DIR --key NAME); 'keys' lists a suite's keys. Values are JSON; \
      output is one line of compact JSON per value. Errors go to standard error as one \
      sentence, with exit status 1.

      A file that cannot be read (another user's file without read permission, a file longer \
      than --max-read-size, 64 MiB by default) is never written over: 'set' and 'increment' \
      fail with the reason and leave it as it is. A write keeps the mode, owner and group of \
      the file it replaces; when it cannot without someone losing access (another user's 0644 \
      file, say), it fails with one sentence saying which and writes nothing. One-shot \
      commands (get, set, increment) need no watching and work when inotify's limits \
      (fs.inotify.max_user_instances, max_user_watches) are reached; 'watch' then fails.
      """,
    subcommands: [Get.self, Set.self, Increment.self, Watch.self, Ping.self, Keys.self, UI.self, FirstRead.self]
  )

  static func main() async {
    await CommandLineProgram.run(self)
  }
}
