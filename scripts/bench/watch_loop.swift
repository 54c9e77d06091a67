// watch_floor.c's watcher (`watch_floor watch DIR NAME`), line for line in Swift, with what the
// least library would add: the file's name routed through a dictionary to an object whose
// closure prints the change. The same system calls per change: select(), ioctl(FIONREAD), read()
// of the events, then open(), read(), close() of the file for each rename onto NAME, and one
// write() of '<unix-ns-now> <contents>'. It tells what the language costs on this path, apart
// from the library's layers (scripts/bench/language_cost.sh). Ends when the contents are -1.
//
// usage: watch_loop DIR NAME
import Glibc

/// What a change of one watched name goes to.
final class Route {
  let path: String
  let onChange: (UnsafeBufferPointer<UInt8>) -> Void

  init(path: String, onChange: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
    self.path = path
    self.onChange = onChange
  }
}

func nowNanoseconds() -> Int {
  var now = timespec()
  clock_gettime(CLOCK_REALTIME, &now)
  return now.tv_sec * 1_000_000_000 + now.tv_nsec
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
  fputs("usage: watch_loop DIR NAME\n", stderr)
  exit(2)
}
let (directory, name) = (arguments[1], arguments[2])
let inotify = inotify_init1(Int32(IN_CLOEXEC))
// The events the library's watch asks for, as watch_floor.c's (see there).
let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_DELETE_SELF)
  | UInt32(IN_MOVE_SELF | IN_UNMOUNT | IN_ONLYDIR)
guard inotify >= 0, inotify_add_watch(inotify, directory, mask) >= 0 else {
  perror("inotify")
  exit(1)
}
var routes: [String: Route] = [:]
routes[name] = Route(path: directory + "/" + name) { contents in
  let line = "\(nowNanoseconds()) \(String(decoding: contents, as: UTF8.self))\n"
  var text = line
  text.withUTF8 { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
  if contents.elementsEqual("-1".utf8) { exit(0) }
}
_ = "0 ready\n".withCString { write(STDOUT_FILENO, $0, 8) }
let buffer = UnsafeMutableRawPointer.allocate(byteCount: 4096, alignment: MemoryLayout<inotify_event>.alignment)
let contents = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
while true {
  // As libinotifytools (and watch_floor.c): select(), then ioctl(FIONREAD), then one read().
  var readable = fd_set()
  withUnsafeMutableBytes(of: &readable) { bytes in
    bytes.initializeMemory(as: UInt8.self, repeating: 0)
    bytes.bindMemory(to: Int.self)[Int(inotify) / Int.bitWidth] |= 1 << (Int(inotify) % Int.bitWidth)
  }
  guard select(inotify + 1, &readable, nil, nil, nil) >= 0 else { continue }
  var queued: Int32 = 0
  guard ioctl(inotify, UInt(FIONREAD), &queued) >= 0 else { continue }
  let length = read(inotify, buffer, 4096)
  guard length > 0 else { continue }
  var offset = 0
  while offset < length {
    let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self).pointee
    let namedAt = offset + MemoryLayout<inotify_event>.size
    offset = namedAt + Int(event.len)
    guard event.mask & UInt32(IN_MOVED_TO) != 0, event.len > 0,
      let route = routes[String(cString: (buffer + namedAt).assumingMemoryBound(to: CChar.self))]
    else { continue }
    let file = open(route.path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { continue }
    let count = read(file, contents.baseAddress, contents.count - 1)
    close(file)
    guard count > 0 else { continue }
    var end = 0
    while end < count, contents[end] != UInt8(ascii: "\n") { end += 1 }
    route.onChange(UnsafeBufferPointer(rebasing: contents[0..<end]))
  }
}
