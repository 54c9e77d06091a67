import Dependencies
import DependenciesTestSupport
import Foundation
import SharedState
import Testing

/// Every read is bounded (issue 20, point 3): anyone who can write a shared directory can rename
/// a sparse file of any length (no disk space used) over a key. A key reads at most its
/// `maximumReadSize` (64 MiB by default), checked with `fstat` before reading: beyond it, a load
/// error naming both lengths, the last good value kept, nothing allocated, nothing written over.
@Suite("Read limit", .serialized, .dependency(\.defaultFileStorage, .fileSystem))
struct ReadLimitTests {
  static func demo(_ arguments: [String]) throws -> DemoProcess {
    try DemoProcess(executable: DemoProcess.demoExecutable, arguments: arguments)
  }

  /// The most memory the process has held (`VmHWM`), in bytes.
  static func peakMemory(of pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
    let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    return kilobytes * 1024
  }

  @Test func aSparseTenGiBFileRenamedOverAKeyIsNotRead() async throws {
    let directory = try TemporaryDirectory()
    let file = directory.path("value.json")
    #expect(try await DemoProcess("set", "--file", file, "1").waitForExit() == 0)
    let watcher = try DemoProcess("watch", "--file", file, "--timeout", "120")
    #expect(try await watcher.nextLine().hasSuffix(" 1"))
    let staged = directory.path("staged")
    #expect(try await DemoProcess.shell("truncate -s 10G '\(staged)' && mv '\(staged)' '\(file)'").waitForExit() == 0)

    // The watching process says so, names both lengths, and read nothing.
    let error = try await watcher.nextErrorLine(seconds: 30)
    #expect(error.contains("10 GiB (10737418240 bytes)") && error.contains("64 MiB (67108864 bytes)"), "\(error)")
    let peak = try Self.peakMemory(of: watcher.processIdentifier)
    #expect(peak < 200 << 20, "the watcher holds \(peak >> 20) MiB")

    // A one-shot read fails with the same sentence, having read next to nothing: its shell
    // prints the bytes it read, to which the kernel adds a child's once it has waited for it
    // (`rchar` in /proc/PID/io; about 80 KB for the whole program). Counted, not timed: a busy
    // machine can make any process slow.
    let get = try DemoProcess.shell(
      "'\(DemoProcess.demoExecutable.path)' get --file '\(file)'; status=$?; grep '^rchar:' /proc/$$/io; exit $status"
    )
    #expect(try await get.waitForExit(seconds: 120) == 1)
    let getErrors = try await get.allErrors().joined()
    #expect(getErrors.contains("10 GiB") && getErrors.contains("maximumReadSize"), "\(getErrors)")
    let counted = try #require(try await get.allOutput().first { $0.hasPrefix("rchar:") })
    let bytesRead = try #require(Int(counted.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
    #expect(bytesRead < 1 << 20, "the read took \(bytesRead) bytes")

    // What could not be read is not written over.
    let set = try DemoProcess("set", "--file", file, "2")
    #expect(try await set.waitForExit(seconds: 20) == 1)
    #expect(try await set.allErrors().joined().contains("10 GiB"))
    let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int
    #expect(size == 10 << 30)

    // Once it is gone, the key works again and the watcher follows.
    try FileManager.default.removeItem(atPath: file)
    #expect(try await watcher.nextLine().hasSuffix(" null"))
    #expect(try await DemoProcess("set", "--file", file, "3").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 3"))
  }

  /// The limit is the key's (and the suite's) to set.
  @Test(arguments: ["file", "suite"])
  func aKeyReadsAtMostItsOwnLimit(storage: String) async throws {
    let directory = try TemporaryDirectory()
    let location = storage == "file"
      ? ["--file", directory.path("value.json")] : ["--suite", directory.url.path, "--key", "value"]
    let long = "\"" + String(repeating: "a", count: 98) + "\""
    #expect(try await Self.demo(["set"] + location + [long]).waitForExit() == 0)
    let size = try #require(try FileManager.default.attributesOfItem(atPath: directory.path("value.json"))[.size] as? Int)
    #expect(try await Self.demo(["get"] + location + ["--max-read-size", "\(size)"]).allOutput() == [long])
    let limited = try Self.demo(["get"] + location + ["--max-read-size", "\(size - 1)"])
    #expect(try await limited.waitForExit() == 1)
    let errors = try await limited.allErrors().joined()
    #expect(errors.contains("\(size) bytes") && errors.contains("\(size - 1) bytes"), "\(errors)")
  }

  /// In process: the last good value stays, with a load error; a write does not replace the file.
  @Test func theLastGoodValueStaysAndTheFileIsNotWrittenOver() async throws {
    let directory = try TemporaryDirectory()
    let url = directory.url.appendingPathComponent("value.json")
    @Shared(.fileStorage(url, maximumReadSize: 8)) var value = 0
    $value.withLock { $0 = 7 }
    let long = Data("123456789".utf8)
    // Replaced at once, as another program that writes a file whole does: written in place, the
    // file is empty for a moment, which reads as no value (the default) if a look of this
    // process's (its own write's event) falls then, and the last good value would be that one.
    try long.write(to: url, options: .atomic)
    await #expect(throws: FileStorageError.self) { try await $value.load() }
    #expect(value == 7)
    #expect(($value.loadError as? FileStorageError)?.reason == .unreadable)
    #expect("\(String(describing: $value.loadError))".contains("9 bytes"))
    await #expect(throws: FileStorageError.self) { try await $value.save() }
    #expect(try Data(contentsOf: url) == long)
  }
}
