import Foundation
import SystemPackage
import Testing
import TestSupport

@testable import SharedState

/// A lock file this process may only read (on a read-only mount here; another user's in
/// `TwoUsersTests`) has its page mapped for reading only, so that looks need not read the file;
/// once it may be written again, a writer maps the page again before it writes through it.
///
/// The mount needs root; the tests run as root in CI and are skipped elsewhere.
@Suite("The page of a lock file that may only be read", .serialized, .enabled(if: getuid() == 0, "needs root to mount"))
struct ReadOnlyPageTests {
  @Test func aPageMappedForReadingOnlyServesLooksAndIsMappedAgainToWrite() async throws {
    let mountPoint = try MountedTmpfs(size: "1m")
    defer { mountPoint.unmount() }
    let path = mountPoint.path("value.json")
    // Written by another process, so that this one has mapped nothing yet.
    let set = ChildProcess.run(DemoProcess.demoExecutable.path, ["set", "--file", path, "5"])
    try #require(set.status == 0, "\(set.output)")
    try mountPoint.remount(readOnly: true)

    let file = DiskFile.forTesting(FilePath(path))
    let page = try #require(file.resources.lock.page(mapping: true), "the page was not mapped for reading")
    #expect(!page.isWritable)
    // A look on the occasion of a delivery finds the write the page describes.
    let reading = file.reading(on: .delivery)
    guard case let .contents(data)? = try reading.found.get() else {
      Issue.record("no contents: \(reading.found)")
      return
    }
    #expect(String(decoding: data.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "5")

    try mountPoint.remount(readOnly: false)
    // Written through the page mapped for reading only, this would fault.
    let transaction = file.beginTransaction()
    try transaction.commit(.contents(Data("6\n".utf8)))
    transaction.end()
    #expect(file.resources.lock.page(mapping: false)?.isWritable == true)
    let check = ChildProcess.run(DemoProcess.demoExecutable.path, ["get", "--file", path])
    #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "6")
  }

  /// A value longer than the page is read from the file: on a read-only mount, the target is
  /// opened for reading after one refusal, and a target like it at once (the refusal is
  /// remembered, not met again at every change); once the mount is writable again, this process
  /// writes the file and reads another process's write as before.
  @Test func aTargetThatMayOnlyBeReadIsReadAndWrittenOnceItMayBe() async throws {
    let mountPoint = try MountedTmpfs(size: "1m")
    defer { mountPoint.unmount() }
    let path = mountPoint.path("value.json")
    func longValue(_ letter: Character) -> String {
      "\"" + String(repeating: letter, count: CoordinationPage.contentsCapacity + 100) + "\""
    }
    func readHere(_ file: DiskFile) throws -> String? {
      let reading = file.reading(on: .delivery)
      guard case let .contents(data)? = try reading.found.get() else { return nil }
      return String(decoding: data.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let set = ChildProcess.run(DemoProcess.demoExecutable.path, ["set", "--file", path, longValue("a")])
    try #require(set.status == 0, "\(set.output)")
    try mountPoint.remount(readOnly: true)

    let file = DiskFile.forTesting(FilePath(path))
    #expect(try readHere(file) == longValue("a"))
    #expect(file.resources.replacement.unwritableTarget != nil, "the refusal was not remembered")
    // Read again, opened for reading at once (`watcher_calls.sh --watcher-uid` counts the
    // refusals it saves); still the file's contents.
    guard case let .contents(again)? = try file.resources.readLocked(limit: 1 << 20).state else {
      Issue.record("the second read found no contents")
      return
    }
    #expect(String(decoding: again.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == longValue("a"))

    try mountPoint.remount(readOnly: false)
    let transaction = file.beginTransaction()
    try transaction.commit(.contents(Data((longValue("b") + "\n").utf8)))
    transaction.end()
    let check = ChildProcess.run(DemoProcess.demoExecutable.path, ["get", "--file", path])
    #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == longValue("b"))

    let setAgain = ChildProcess.run(DemoProcess.demoExecutable.path, ["set", "--file", path, longValue("c")])
    try #require(setAgain.status == 0, "\(setAgain.output)")
    #expect(try readHere(file) == longValue("c"))
  }
}
