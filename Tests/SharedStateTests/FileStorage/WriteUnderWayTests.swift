import Foundation
import Testing
import TestSupport

/// Another process's write is seen while that writer has not finished it: its exchange is done
/// (the event is out) but its coordination page still says a write is under way.
@Suite(
  "File storage: a write seen before its writer finishes",
  .enabled(if: HeldRenames.areAvailable, "needs strace, to hold a writer right after its exchange")
)
struct WriteUnderWayTests {
  /// `strace` holds the writer for 20 s right after its exchange, before it finishes the page and
  /// unlocks. A watcher takes the new value in from the file at once: it used to wait for the
  /// writer (a second look every 10 ms, then the lock), and printed it only once the writer went
  /// on, 20 s later.
  @Test(arguments: ["--file", "--suite"])
  func aWriterHeldAfterItsExchangeHoldsUpNoWatcher(storage: String) async throws {
    let directory = try TemporaryDirectory()
    let place = storage == "--file" ? [storage, directory.path("value.json")] : [storage, directory.url.path, "--key", "k"]
    let demo = DemoProcess.demoExecutable
    #expect(try await DemoProcess(executable: demo, arguments: ["set"] + place + ["1"]).waitForExit() == 0)
    let watcher = try DemoProcess(executable: demo, arguments: ["watch"] + place)
    #expect(try await watcher.nextLine().hasSuffix(" 1"))

    let writer = try DemoProcess(
      executable: HeldRenames.strace,
      arguments: HeldRenames.arguments(delayingBy: 20_000_000, [demo.path, "set"] + place + ["2"])
    )
    // Well before the writer goes on: its start takes a fraction of a second (the margin is for
    // a machine busy with the other tests).
    #expect(try await watcher.nextLine(seconds: 12).hasSuffix(" 2"))
    #expect(try await writer.waitForExit(seconds: 30) == 0)
    watcher.kill(SIGTERM)
  }
}
