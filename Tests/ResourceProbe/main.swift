// A child program of the resource tests (ResourceBoundTests) and of the benchmark scripts
// `scripts/bench/suite_open.py` and `scripts/bench/large_value.py`: what a program with many
// keys, or one large value, costs in time, descriptors and memory.
//
//   ResourceProbe open SUITE COUNT
//       Opens COUNT app-storage keys `key-0` … with Int defaults (key i: i), as a program with
//       many settings does, and prints `before RSS_KIB`, then
//       `opened COUNT WALL_MS CPU_MS RSS_KIB HWM_KIB DESCRIPTORS MAPPINGS`.
//   ResourceProbe descriptors SUITE COUNT OWN
//       Opens COUNT app-storage keys with Int default 0, increments each once with withLock,
//       checks every value and error, then opens OWN descriptors of its own (/dev/null). Prints
//       `keys COUNT failed N` (with `failure KEY: ERROR` lines for the first few), then
//       `own OWN` or `own failed AT: ERROR`, and `descriptors N`; exits 0 when nothing failed.
//   ResourceProbe watch-large FILE
//       Watches a file-storage key holding a JSON string; prints `ready RSS_KIB HWM_KIB`, then
//       for each change `changed LENGTH RSS_KIB HWM_KIB` (memory once the value is delivered).
//       Each line read on standard input prints `memory RSS_KIB HWM_KIB` (what stays held).
import Foundation
import OpenCombineShim
import SharedState
import Synchronization

/// Prints a line at once, from any thread.
@Sendable func line(_ text: String) {
  FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// The whole text of a file of /proc (whose size `stat` gives as 0).
func procText(_ path: String) -> String {
  guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
  defer { try? handle.close() }
  return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
}

/// A field of /proc/self/status, in KiB (`VmRSS`, `VmHWM`).
func status(_ field: String) -> Int {
  for row in procText("/proc/self/status").split(separator: "\n") where row.hasPrefix(field + ":") {
    return Int(row.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? -1
  }
  return -1
}

/// The descriptors the process has open now.
func openDescriptorCount() -> Int {
  ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count - 1
}

/// The memory mappings the process has now.
func mappingCount() -> Int {
  procText("/proc/self/maps").split(separator: "\n").count
}

/// The CPU time of the whole process so far, in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
  var now = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
  return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

let arguments = CommandLine.arguments
func usage() -> Never {
  FileHandle.standardError.write(Data("usage: ResourceProbe open|descriptors|watch-large ...\n".utf8))
  exit(2)
}
guard arguments.count >= 3 else { usage() }

switch arguments[1] {
case "open":
  guard arguments.count == 4, let count = Int(arguments[3]) else { usage() }
  let suite = AppStorageSuite(directory: URL(fileURLWithPath: arguments[2]))
  line("before \(status("VmRSS"))")
  let start = DispatchTime.now().uptimeNanoseconds
  let startCPU = processCPUNanoseconds()
  let keys = (0..<count).map { index in
    Shared(wrappedValue: index, .appStorage("key-\(index)", store: suite))
  }
  let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
  let cpu = Double(processCPUNanoseconds() - startCPU) / 1e6
  withExtendedLifetime(keys) {
    line(
      "opened \(count) \(String(format: "%.1f", wall)) \(String(format: "%.1f", cpu)) "
        + "\(status("VmRSS")) \(status("VmHWM")) \(openDescriptorCount()) \(mappingCount())"
    )
  }

case "descriptors":
  guard arguments.count == 5, let count = Int(arguments[3]), let own = Int(arguments[4]) else { usage() }
  let suite = AppStorageSuite(directory: URL(fileURLWithPath: arguments[2]))
  let keys = (0..<count).map { index in
    Shared(wrappedValue: 0, .appStorage("key-\(index)", store: suite))
  }
  for key in keys { key.withLock { $0 += 1 } }
  var failures: [String] = []
  for (index, key) in keys.enumerated() {
    if let error = key.loadError ?? key.saveError {
      failures.append("failure key-\(index): \(error)")
    } else if key.wrappedValue != 1 {
      failures.append("failure key-\(index): holds \(key.wrappedValue)")
    }
  }
  // What another program of the suite finds: each file read back through the suite's API.
  for index in 0..<count {
    do {
      let stored = try suite.value(forKey: "key-\(index)", as: Int.self)
      if stored != 1 { failures.append("failure key-\(index): the suite reads \(String(describing: stored))") }
    } catch {
      failures.append("failure key-\(index): the suite cannot read it: \(error)")
    }
  }
  line("keys \(count) failed \(failures.count)")
  for failure in failures.prefix(5) { line(failure) }
  var opened: [Int32] = []
  var ownFailure: String?
  for index in 0..<own {
    let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    if descriptor < 0 {
      ownFailure = "own failed \(index): \(String(cString: strerror(errno)))"
      break
    }
    opened.append(descriptor)
  }
  line(ownFailure ?? "own \(own)")
  for descriptor in opened { close(descriptor) }
  line("descriptors \(openDescriptorCount())")
  withExtendedLifetime(keys) {}
  exit(failures.isEmpty && ownFailure == nil ? 0 : 1)

case "watch-large":
  let url = URL(fileURLWithPath: arguments[2])
  SharedChangeDelivery.default = .immediate
  let value = Shared(wrappedValue: "", .fileStorage(url))
  let observer = value.publisher.dropFirst().sink { @Sendable text in
    line("changed \(text.utf8.count) \(status("VmRSS")) \(status("VmHWM"))")
  }
  line("ready \(status("VmRSS")) \(status("VmHWM"))")
  while readLine() != nil {
    line("memory \(status("VmRSS")) \(status("VmHWM"))")
  }
  withExtendedLifetime((value, observer)) {}

default:
  usage()
}
