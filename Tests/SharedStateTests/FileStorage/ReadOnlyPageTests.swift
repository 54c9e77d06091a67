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
    #expect(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "5")

    try mountPoint.remount(readOnly: false)
    // Written through the page mapped for reading only, this would fault.
    let transaction = file.beginTransaction()
    try transaction.commit(.contents(Data("6\n".utf8)))
    transaction.end()
    #expect(file.resources.lock.page(mapping: false)?.isWritable == true)
    let check = ChildProcess.run(DemoProcess.demoExecutable.path, ["get", "--file", path])
    #expect(check.output.trimmingCharacters(in: .whitespacesAndNewlines) == "6")
  }
}
