import Foundation
import Testing
import TestSupport

/// A PostgreSQL server of a test's own: `initdb` in a temporary directory (as the `postgres`
/// user when the tests run as root, who may not run it), listening on 127.0.0.1 on a free port
/// and on a socket in that directory. ``withPostgresServer(_:)`` stops it and removes the
/// directory on every path out.
final class PostgresServer: Sendable {
  /// Where Debian puts the server's programs.
  static let binDirectory: String? = {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
      .map { "\(root)/\($0)/bin" }
      .first { FileManager.default.isExecutableFile(atPath: "\($0)/initdb") }
  }()

  let directory: URL
  let port: Int
  private let runAs: String?

  /// `postgres://postgres@127.0.0.1:PORT/postgres`: the superuser, trusted on loopback.
  var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

  /// The URL of another role.
  func url(user: String) -> String { "postgres://\(user)@127.0.0.1:\(port)/postgres" }

  private init() throws {
    guard Self.binDirectory != nil else { throw PostgresServerError("no PostgreSQL server installed") }
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("SharedStatePostgresTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    port = try Self.freePort()
    runAs = getuid() == 0 ? "postgres" : nil
    if runAs != nil {
      try Self.run("/bin/chown", ["postgres", directory.path])
    }
  }

  /// Runs `body` with a new, running server; stops it and removes its directory afterwards,
  /// whether `body` returns or throws.
  ///
  /// Starting (`initdb`, `pg_ctl start`) and removing the server block for seconds: they run off
  /// the cooperative pool, which every other test of the run needs.
  static func withServer<R>(_ body: (PostgresServer) async throws -> R) async throws -> R {
    let server = try await offThePool { try startedServer() }
    do {
      let result = try await body(server)
      _ = try? await offThePool { server.remove() }
      return result
    } catch {
      _ = try? await offThePool { server.remove() }
      throw error
    }
  }

  /// A new, running server. Its port is found free before the server binds it, and another
  /// program (a client's connection, another test's server) may take it in between: then the
  /// server is made again, on another port, twice at most.
  private static func startedServer() throws -> PostgresServer {
    for attempt in 1... {
      let server = try PostgresServer()
      do {
        try server.initialise()
        try server.start()
        return server
      } catch let error as PostgresServerError where attempt < 3 && error.isPortTaken {
        server.remove()
      } catch {
        server.remove()
        throw error
      }
    }
    fatalError("unreachable")
  }

  private func initialise() throws {
    try program("initdb", ["-D", dataPath, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  }

  private var dataPath: String { directory.appendingPathComponent("data").path }

  /// Starts the server and waits until it accepts connections.
  func start() throws {
    let options = "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    let log = directory.appendingPathComponent("log")
    do {
      try program("pg_ctl", ["-D", dataPath, "-o", options, "-l", log.path, "-w", "start"])
    } catch {
      // The server's own words say why (a port taken meanwhile, a limit reached): show them.
      let said = (try? String(contentsOf: log, encoding: .utf8)) ?? "(no log)"
      throw PostgresServerError("\(error)\nserver log:\n\(said)")
    }
  }

  /// Stops the server (fast shutdown: open connections are closed) and waits until it has.
  func stop() throws {
    try program("pg_ctl", ["-D", dataPath, "-m", "fast", "-w", "stop"])
  }

  /// The server's processes: the postmaster first, then its children (one per connection, and
  /// its helpers).
  private func processes() throws -> [pid_t] {
    let pidFile = try String(contentsOfFile: "\(dataPath)/postmaster.pid", encoding: .utf8)
    guard let first = pidFile.split(separator: "\n").first, let postmaster = pid_t(first) else {
      throw PostgresServerError("postmaster.pid names no process")
    }
    var children: [pid_t] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      // After the command's closing parenthesis: state, then the parent's id.
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, pid_t(fields[1]) == postmaster { children.append(pid) }
    }
    return [postmaster] + children
  }

  /// Stops every process of the server (SIGSTOP), the postmaster first so that it starts no new
  /// one: connections stay open and the kernel still accepts new ones, but nothing answers. A
  /// test that calls it calls ``thaw()`` on every path out.
  func freeze() throws {
    for pid in try processes() { Foundation.kill(pid, SIGSTOP) }
  }

  /// Lets every process of the server run again (SIGCONT).
  func thaw() throws {
    for pid in try processes() { Foundation.kill(pid, SIGCONT) }
  }

  /// Makes `user` log in over TCP with a password (SCRAM), and waits until the server has
  /// taken the change.
  func requirePassword(for user: String) throws {
    let hba = URL(fileURLWithPath: "\(dataPath)/pg_hba.conf")
    let rules = try String(contentsOf: hba, encoding: .utf8)
    try ("host all \(user) 127.0.0.1/32 scram-sha-256\n" + rules).write(to: hba, atomically: false, encoding: .utf8)
    try psql("SELECT pg_reload_conf()")
    for _ in 0..<200 {
      let (status, output) = ChildProcess.run(
        psqlPath, ["-X", "-w", "-h", "127.0.0.1", "-p", "\(port)", "-U", user, "-d", "postgres", "-c", "SELECT 1"]
      )
      if status != 0, output.contains("password") { return }
      usleep(10_000)
    }
    throw PostgresServerError("the server still lets \(user) in without a password")
  }

  var psqlPath: String {
    let bin = Self.binDirectory.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("bin/psql").path }
    return bin.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil } ?? "/usr/bin/psql"
  }

  /// Waits until `query` (a count) answers something other than 0, failing after `seconds`. The
  /// bound is for failure, two minutes unless a test says otherwise: inside the full parallel
  /// suite the cooperative pool's threads can all be busy for tens of seconds (a clean-clone run
  /// failed a 20-second bound 85 s into a test).
  func waitFor(_ query: String, seconds: Double = 120) async throws {
    try await withTimeout(seconds: seconds) {
      // Each `psql` blocks its thread: off the cooperative pool, which the other tests need.
      while try await offThePool({ try self.psql(query) }) == "0" { try await Task.sleep(for: .milliseconds(10)) }
    }
  }

  /// Runs SQL with psql as the superuser, and returns what it prints (unaligned, tuples only).
  @discardableResult
  func psql(_ sql: String) throws -> String {
    return try Self.run(psqlPath, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", "postgres", "-c", sql])
  }

  private func remove() {
    try? program("pg_ctl", ["-D", dataPath, "-m", "immediate", "-w", "stop"])
    try? FileManager.default.removeItem(at: directory)
  }

  /// Runs one of the server's programs, as `postgres` when the tests run as root. The server
  /// that `pg_ctl start` leaves running inherits no descriptor of this process (see
  /// ``ChildProcess``), so it never holds another test's pipe open.
  private func program(_ name: String, _ arguments: [String]) throws {
    let path = "\(Self.binDirectory ?? "")/\(name)"
    let command = (runAs.map { ["/sbin/runuser", "-u", $0, "--"] } ?? []) + [path] + arguments
    try Self.run(command[0], Array(command.dropFirst()))
  }

  /// Runs a program to its end and returns what it printed (see ``ChildProcess``: every signal
  /// unblocked and at its default, so that a server started from a thread that blocks SIGINT
  /// stops when `pg_ctl stop` asks; output to a file, which the server left running may keep
  /// open; the exit taken with waitpid).
  @discardableResult
  private static func run(_ path: String, _ arguments: [String]) throws -> String {
    let (status, output) = ChildProcess.run(path, arguments)
    guard status == 0 else {
      throw PostgresServerError("\(path) \(arguments.joined(separator: " ")) failed: \(output)")
    }
    return output.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Binds a socket to this server's port, without listening: until it is closed, no other
  /// server can take the port, and connecting to it is refused at once. For a stopped server.
  ///
  /// - Returns: The socket's descriptor, to close.
  func holdPort() throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PostgresServerError("socket() failed") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let bound = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard bound else {
      close(fd)
      throw PostgresServerError("port \(port) was taken as soon as the server stopped")
    }
    return fd
  }

  /// A port nobody listens on now: the kernel's choice for a socket bound to port 0.
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw PostgresServerError("socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
      }
    }
    guard bound else { throw PostgresServerError("no free port on 127.0.0.1") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

struct PostgresServerError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }

  /// Whether the server said its port was taken.
  var isPortTaken: Bool {
    description.contains("could not bind") || description.contains("already in use")
  }
}

extension Trait where Self == ConditionTrait {
  /// Runs a test or suite only where ``PostgresServer`` can start a server.
  static var postgresInstalled: Self {
    .enabled(
      if: PostgresServer.binDirectory != nil,
      "PostgreSQL's server is not installed here (Debian's postgresql package; scripts/test.sh installs it)"
    )
  }
}
