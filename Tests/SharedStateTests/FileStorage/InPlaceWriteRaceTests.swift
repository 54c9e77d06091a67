import Foundation
import Testing
import TestSupport

private let strace = URL(fileURLWithPath: "/usr/bin/strace")

/// `strace`'s arguments to run `command` with each of its `renameat2` calls (and its threads')
/// returning only `microseconds` after the rename is done.
private func delayingRenames(by microseconds: Int, of command: [String]) -> [String] {
  ["-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat2", "-e", "inject=renameat2:delay_exit=\(microseconds)"] + command
}

/// Whether `strace` can run a program here and delay its system calls.
private let canDelaySystemCalls: Bool = {
  guard FileManager.default.isExecutableFile(atPath: strace.path) else { return false }
  let probe = Process()
  probe.executableURL = strace
  probe.arguments = delayingRenames(by: 1, of: ["/bin/true"])
  guard (try? probe.run()) != nil else { return false }
  probe.waitUntilExit()
  return probe.terminationStatus == 0
}()

/// A program that takes no lock writes the file in place just after this process's own write
/// put it there: the write must not be taken for this process's own.
@Suite(
  "File storage: a write in place racing the process's own",
  .enabled(if: canDelaySystemCalls, "needs strace, to hold the process between its rename and what follows")
)
struct InPlaceWriteRaceTests {
  /// The watching demo puts the empty placeholder back after the file is deleted. `strace`
  /// holds it for 3 s right after the rename that does so, which is when a shell's `printf >`
  /// lands (on the new placeholder). The demo must then report the shell's bad contents; it
  /// used to record the status it found after the pause as its own write's, and never did.
  @Test func aShellWriteJustAfterTheProcesssOwnRenameIsDelivered() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    try "1\n".write(toFile: file, atomically: false, encoding: .utf8)
    let watcher = try DemoProcess(
      executable: strace,
      arguments: delayingRenames(by: 3_000_000, of: [DemoProcess.demoExecutable.path, "watch", "--file", file])
    )
    #expect(try await watcher.nextLine().hasSuffix(" 1"))

    #expect(try await DemoProcess.shell("rm '\(file)'").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    // The placeholder appears when the rename is done; the watcher is then held for 3 s.
    let overwrite = "until [ -e '\(file)' ]; do sleep 0.01; done; printf '{not json' > '\(file)'"
    #expect(try await DemoProcess.shell(overwrite).waitForExit(seconds: 20) == 0)

    let error = try await watcher.nextErrorLine()
    #expect(error.contains("does not hold a valid value"))
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "{not json", "the shell's file is left alone")
  }
}
