// protocol_counter.c (`protocol_counter FILE TIMES START_AT_UNIX_NS [watch]`), line for line in
// Swift: the same system calls per increment, the same watching thread, with plain Glibc calls and
// no abstraction of the library's. It tells what the language costs on the write path, apart from
// the library's layers (scripts/bench/write_cost.sh prints its figures beside the library's and
// C's). See protocol_counter.c for what each step is and why it is there.
//
// The calls Swift does not import (glibc declares `renameat2` for _GNU_SOURCE only, and `prctl`
// is variadic) are taken with dlsym, as C function pointers. The coordination page is read and
// written with plain loads and stores between fences, which on x86-64 is the code C's __atomic
// calls with these orderings compile to.
//
// usage: protocol_counter_swift FILE TIMES START_AT_UNIX_NS [watch]
import Glibc
import Synchronization

let pageSize = 4096
let contentsOffset = 128

// Linux x86-64 values of what Swift's Glibc module leaves out (GNU extensions).
let openPath: Int32 = 0o10_000_000  // O_PATH
let setOFDLock: Int32 = 37  // F_OFD_SETLK
let setOFDLockWaiting: Int32 = 38  // F_OFD_SETLKW
let renameExchange: UInt32 = 2  // RENAME_EXCHANGE
let setTimerSlack: Int32 = 29  // PR_SET_TIMERSLACK

let renameat2 = unsafeBitCast(
  dlsym(nil, "renameat2"),
  to: (@convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32).self
)
let prctl = unsafeBitCast(
  dlsym(nil, "prctl"), to: (@convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32).self
)

func die(_ what: String) -> Never {
  perror(what)
  exit(1)
}

func sleepUntil(_ deadline: Int) {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  let wait = deadline - (now.tv_sec * 1_000_000_000 + now.tv_nsec)
  guard wait > 0 else { return }
  var pause = timespec(tv_sec: wait / 1_000_000_000, tv_nsec: wait % 1_000_000_000)
  nanosleep(&pause, nil)
}

func monotonicNanoseconds() -> Int {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

func lockFile(_ descriptor: Int32, _ type: Int32) -> Int32 {
  var lock = flock()
  lock.l_type = Int16(type)
  lock.l_whence = Int16(SEEK_SET)
  return fcntl(descriptor, type == F_UNLCK ? setOFDLock : setOFDLockWaiting, &lock)
}

/// The seven words of a file's identity, as the page holds them (words 2 to 8).
func identity(_ status: stat) -> [7 of UInt64] {
  [
    UInt64(status.st_dev), UInt64(status.st_ino), UInt64(status.st_size),
    UInt64(status.st_mtim.tv_sec), UInt64(status.st_mtim.tv_nsec),
    UInt64(status.st_ctim.tv_sec), UInt64(status.st_ctim.tv_nsec),
  ]
}

/// The decimal number at the start of `text` (C's atol).
func number(_ text: UnsafeRawBufferPointer) -> Int {
  var value = 0
  var negative = false
  for (index, byte) in text.enumerated() {
    if index == 0, byte == UInt8(ascii: "-") {
      negative = true
    } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
      value = value &* 10 &+ Int(byte &- UInt8(ascii: "0"))
    } else {
      break
    }
  }
  return negative ? -value : value
}

// What the watching thread needs (a C thread takes no Swift context).
nonisolated(unsafe) var watchedInotify: Int32 = -1
nonisolated(unsafe) var watchedName: UnsafeMutablePointer<CChar>!
nonisolated(unsafe) var watchedTarget: UnsafeMutablePointer<CChar>!
nonisolated(unsafe) var page: UnsafeMutablePointer<UInt64>!
/// The value the watching thread last took in (a global, so that the work is not left out).
nonisolated(unsafe) var lastValueSeen = 0

/// protocol_counter.c's watch_directory().
func watchDirectory() {
  _ = prctl(setTimerSlack, 1, 0, 0, 0)
  let bufferSize = 64 * 1024
  let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
  let text = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
  var seen: UInt64 = 0
  var lastWakeUp = -1
  var inBurst = false
  while true {
    if inBurst {
      let left = lastWakeUp + 100_000 - monotonicNanoseconds()
      if left > 0 {
        var pause = timespec(tv_sec: 0, tv_nsec: left)
        nanosleep(&pause, nil)
      }
    }
    let start = monotonicNanoseconds()
    var readable = fd_set()
    withUnsafeMutableBytes(of: &readable) { bytes in
      bytes.initializeMemory(as: UInt8.self, repeating: 0)
      bytes.bindMemory(to: Int.self)[Int(watchedInotify) / Int.bitWidth] |= 1 << (Int(watchedInotify) % Int.bitWidth)
    }
    if select(watchedInotify + 1, &readable, nil, nil, nil) < 0 {
      if errno == EINTR { continue }
      return
    }
    var queued: Int32 = 0
    if ioctl(watchedInotify, UInt(FIONREAD), &queued) < 0 { return }
    let length = read(watchedInotify, buffer, bufferSize)
    let end = monotonicNanoseconds()
    if end - start >= 10_000 {
      if lastWakeUp >= 0 { inBurst = end - lastWakeUp < 1_000_000 }
      lastWakeUp = end
    }
    if length <= 0 {
      if length < 0, errno == EINTR { continue }
      return
    }
    var namesFile = false
    var offset = 0
    while offset < length {
      let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self)
      let nameAt = offset + MemoryLayout<inotify_event>.size
      offset = nameAt + Int(event.pointee.len)
      if event.pointee.len != 0, strcmp((buffer + nameAt).assumingMemoryBound(to: CChar.self), watchedName) == 0 {
        namesFile = true
      }
    }
    if !namesFile { continue }
    let before = page[0]
    atomicMemoryFence(ordering: .acquiring)
    var entry = stat()
    text.initializeMemory(as: UInt8.self, repeating: 0)
    if before & 1 == 1 {
      if page[11] != before + 1 { continue }
      atomicMemoryFence(ordering: .acquiring)
      let size = min(Int(page[14]), 63)
      text.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(page) + contentsOffset, count: size))
      if fstatat(AT_FDCWD, watchedTarget, &entry, AT_SYMLINK_NOFOLLOW) != 0 { continue }
      if UInt64(entry.st_ino) != page[13] || UInt64(entry.st_dev) != page[12] || UInt64(entry.st_size) != page[14] {
        continue
      }
      atomicMemoryFence(ordering: .acquiring)
      let now = page[0]
      if now != before, now != before + 1 { continue }
      seen = before
      lastValueSeen = number(UnsafeRawBufferPointer(rebasing: text[0..<size]))
      continue
    }
    if fstatat(AT_FDCWD, watchedTarget, &entry, AT_SYMLINK_NOFOLLOW) != 0 { continue }
    if before == seen, UInt64(entry.st_ino) == page[3], UInt64(entry.st_ctim.tv_nsec) == page[8] { continue }
    let size = min(Int(page[10]), 63)
    text.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(page) + contentsOffset, count: size))
    atomicMemoryFence(ordering: .acquiring)
    if page[0] != before { continue }
    seen = before
    lastValueSeen = number(UnsafeRawBufferPointer(rebasing: text[0..<size]))
  }
}

let arguments = CommandLine.arguments
var watching = false
var usable = arguments.count >= 4
for argument in arguments.dropFirst(4) {
  if argument == "watch" { watching = true } else { usable = false }
}
guard usable, let times = Int(arguments[2]), let startAt = Int(arguments[3]) else {
  fputs("usage: protocol_counter_swift FILE TIMES START_AT_UNIX_NS [watch]\n", stderr)
  exit(2)
}
let target = arguments[1]
let slash = target.lastIndex(of: "/")
let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
let directory = slash.map { $0 == target.startIndex ? "/" : String(target[..<$0]) } ?? "."
let lockName = ".\(name).sharedstate-lock"
let scratchName = ".\(name).sharedstate-scratch"
// As C strings once (as C's and the library's are): each Swift string handed to a C call would be
// copied into a fresh one, a malloc per call.
let nameC = strdup(name)!
let lockNameC = strdup(lockName)!
let scratchNameC = strdup(scratchName)!
let lockPathC = strdup("\(directory)/\(lockName)")!

let anchor = open(directory, openPath | O_DIRECTORY | O_CLOEXEC)
if anchor < 0 { die("open directory") }
let lock = openat(anchor, lockNameC, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
if lock < 0 { die("open lock") }
if posix_fallocate(lock, 0, off_t(pageSize)) != 0 { die("fallocate") }
guard let mapped = mmap(nil, pageSize, PROT_READ | PROT_WRITE, MAP_SHARED, lock, 0), mapped != MAP_FAILED else {
  die("mmap")
}
page = mapped.assumingMemoryBound(to: UInt64.self)
if watching {
  watchedInotify = inotify_init1(Int32(IN_CLOEXEC))
  if watchedInotify < 0 { die("inotify_init1") }
  let mask: UInt32 = 0x8 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800 | 0x2000 | 0x100_0000
  if inotify_add_watch(watchedInotify, directory, mask) < 0 { die("inotify_add_watch") }
  watchedName = nameC
  watchedTarget = strdup(target)!
  var thread = pthread_t()
  if pthread_create(&thread, nil, { _ in watchDirectory(); return nil }, nil) != 0 { die("pthread_create") }
}

var scratch: Int32 = -1
var atTarget: Int32 = -1
var scratchStatus = stat()
var atTargetStatus = stat()
let text = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
let written = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)

sleepUntil(startAt)
for _ in 0..<times {
  if lockFile(lock, Int32(F_WRLCK)) != 0 { die("lock") }
  var status = stat()
  var atName = stat()
  if fstat(lock, &status) != 0 || status.st_nlink != 1 { die("lock file") }
  if fstatat(AT_FDCWD, lockPathC, &atName, AT_SYMLINK_NOFOLLOW) != 0 || atName.st_ino != status.st_ino
    || atName.st_dev != status.st_dev
  {
    die("lock file moved")
  }
  let sequence = page[0]
  atomicMemoryFence(ordering: .acquiring)
  var current = stat()
  let hasTarget = fstatat(anchor, nameC, &current, AT_SYMLINK_NOFOLLOW) == 0
  var value = 0
  let now = identity(current)
  if hasTarget, page[1] == sequence, page[9] == 2,
    withUnsafeBytes(of: now, { memcmp(page + 2, $0.baseAddress!, $0.count) }) == 0
  {
    let length = min(Int(page[10]), 63)
    text.copyMemory(from: UnsafeRawBufferPointer(start: UnsafeRawPointer(page) + contentsOffset, count: length))
    value = number(UnsafeRawBufferPointer(rebasing: text[0..<length]))
  } else if hasTarget {
    let descriptor = openat(anchor, nameC, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    if descriptor < 0 { die("open target") }
    text.initializeMemory(as: UInt8.self, repeating: 0)
    let count = pread(descriptor, text.baseAddress, 63, 0)
    if count < 0 { die("read") }
    value = number(UnsafeRawBufferPointer(rebasing: text[0..<count]))
    if atTarget >= 0 { close(atTarget) }
    atTarget = descriptor
    atTargetStatus = current
  }
  value += 1
  // The decimal text of the value (C's snprintf "%ld").
  var length = 0
  var rest = value.magnitude
  repeat {
    text[length] = UInt8(ascii: "0") + UInt8(rest % 10)
    rest /= 10
    length += 1
  } while rest > 0
  if value < 0 {
    text[length] = UInt8(ascii: "-")
    length += 1
  }
  for index in 0..<length { written[index] = text[length - 1 - index] }
  var scratchEntry = stat()
  let present = fstatat(anchor, scratchNameC, &scratchEntry, AT_SYMLINK_NOFOLLOW) == 0
  if present, scratchEntry.st_nlink == 1, scratch >= 0, scratchEntry.st_ino == scratchStatus.st_ino {
    scratchStatus.st_size = scratchEntry.st_size
  } else if present, scratchEntry.st_nlink == 1, atTarget >= 0, scratchEntry.st_ino == atTargetStatus.st_ino {
    let former = scratch
    let formerStatus = scratchStatus
    scratch = atTarget
    scratchStatus = scratchEntry
    atTarget = -1
    if former >= 0, hasTarget, formerStatus.st_ino == current.st_ino {
      atTarget = former
      atTargetStatus = current
    } else if former >= 0 {
      close(former)
    }
  } else {
    if scratch >= 0, hasTarget, scratchStatus.st_ino == current.st_ino {
      if atTarget >= 0 { close(atTarget) }
      atTarget = scratch
      atTargetStatus = current
    } else if scratch >= 0 {
      close(scratch)
    }
    scratch = openat(anchor, scratchNameC, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
    if scratch < 0 { die("open scratch") }
    if fstat(scratch, &scratchStatus) != 0 { die("fstat scratch") }
  }
  let busy = sequence & 1 == 1 ? sequence + 2 : sequence | 1
  page[0] = busy
  atomicMemoryFence(ordering: .releasing)
  (UnsafeMutableRawPointer(page) + contentsOffset).copyMemory(from: written.baseAddress!, byteCount: length)
  page[12] = UInt64(scratchStatus.st_dev)
  page[13] = UInt64(scratchStatus.st_ino)
  page[14] = UInt64(length)
  atomicMemoryFence(ordering: .releasing)
  page[11] = busy + 1
  if pwrite(scratch, written.baseAddress, length, 0) != length { die("pwrite") }
  if scratchStatus.st_size != length {
    if ftruncate(scratch, off_t(length)) != 0 { die("ftruncate") }
    scratchStatus.st_size = length
  }
  let exchanged = renameat2(anchor, nameC, anchor, scratchNameC, renameExchange) == 0
  if !exchanged, errno != ENOENT || renameat(anchor, scratchNameC, anchor, nameC) != 0 { die("rename") }
  let writtenDescriptor = scratch
  var writtenStatus = stat()
  if fstat(writtenDescriptor, &writtenStatus) != 0 { die("fstat written") }
  if exchanged {
    scratch = atTarget
    scratchStatus = atTargetStatus
  } else {
    if atTarget >= 0 { close(atTarget) }
    scratch = -1
  }
  atTarget = writtenDescriptor
  atTargetStatus = writtenStatus
  withUnsafeBytes(of: identity(writtenStatus)) { UnsafeMutableRawPointer(page + 2).copyMemory(from: $0.baseAddress!, byteCount: 56) }
  page[10] = UInt64(length)
  page[9] = 2
  page[1] = busy + 1
  atomicMemoryFence(ordering: .releasing)
  page[0] = busy + 1
  if lockFile(lock, Int32(F_UNLCK)) != 0 { die("unlock") }
}
print("ok \(times)")
