import Foundation
import Testing
import TestSupport

/// A program that takes no lock writes the file in place just after this process's own write
/// put it there: the write must not be taken for this process's own.
@Suite(
  "File storage: a write in place racing the process's own",
  .enabled(if: HeldRenames.areAvailable, "needs strace, to hold the process between its rename and what follows")
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
      executable: HeldRenames.strace,
      arguments: HeldRenames.arguments(delayingBy: 3_000_000, [DemoProcess.demoExecutable.path, "watch", "--file", file])
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
