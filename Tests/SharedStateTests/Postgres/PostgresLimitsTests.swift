import Foundation
import SharedState
import SharedStatePostgres
import Testing

/// PostgreSQL's limits on a key (its index entry, `NOTIFY`'s payload, `text` without U+0000):
/// checked by the library before the server is asked, refused in one sentence that does not
/// repeat the key, and a key just within them kept and notified. Each test on a server of its
/// own.
@Suite("PostgreSQL's limits on keys", .postgresInstalled)
struct PostgresLimitsTests {
  /// `count` characters of letters, digits, `-` and `_` that do not repeat in any pattern the
  /// server's compression could shrink (a key of one repeated letter fits the index compressed,
  /// and would hide the limit).
  static func incompressible(_ count: Int, seed: UInt64) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    var state = seed | 1
    return String(
      (0..<count).map { _ in
        // xorshift64
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return alphabet[Int(state % 64)]
      }
    )
  }

  /// Checks that `error` is a refusal of the key before the server was asked, in one sentence
  /// that shows the key's start and length but not the key, and names `limit`.
  private func expectRefusal(
    _ error: (any Error)?, of key: String, naming limit: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let error = try #require(error as? PostgresStorageError, sourceLocation: sourceLocation)
    let sentence = String(describing: error)
    #expect(error.kind == .outsideLimits, "\(sentence)", sourceLocation: sourceLocation)
    #expect(sentence.contains(limit), "\(sentence)", sourceLocation: sourceLocation)
    #expect(sentence.contains("(\(key.count) characters)"), "\(sentence)", sourceLocation: sourceLocation)
    #expect(sentence.contains("…"), "\(sentence)", sourceLocation: sourceLocation)
    #expect(!sentence.contains(String(reflecting: key).dropFirst().dropLast()), sourceLocation: sourceLocation)
    #expect(sentence.count < 400, "\(sentence.count) characters: \(sentence)", sourceLocation: sourceLocation)
    #expect(!sentence.contains("\n"), sourceLocation: sourceLocation)
  }

  /// The issue's case: a key of 2 800 characters made "index row size 2824 exceeds btree
  /// version 4 maximum 2704", in a message of 3 033 characters that repeated the key.
  @Test func aKeyLongerThanTheIndexHoldsIsRefusedInOneShortSentence() async throws {
    try await PostgresServer.withServer { server in
      let store = try PostgresStore(url: server.url)
      @Shared(.postgres("other", store: store)) var other = 0
      $other.withLock { $0 = 1 }
      #expect($other.saveError == nil)

      let key = Self.incompressible(2800, seed: 38)
      @Shared(.postgres(key, store: store)) var long = 0
      try expectRefusal($long.loadError, of: key, naming: "2048")
      #expect(String(describing: $long.loadError!).hasPrefix("The key \"\(key.prefix(20))"))
      var ran = false
      $long.withLock {
        ran = true
        $0 = 1
      }
      #expect(!ran)
      try expectRefusal($long.saveError, of: key, naming: "2048")
      #expect(long == 0)
      #expect(try server.psql("SELECT count(*) FROM shared_state") == "1")

      // A process of the command-line tool says the same, in one line.
      let set = try DemoProcess("set", "--postgres", server.url, "--key", key, "1")
      #expect(try await set.waitForExit() == 1)
      let errors = try await set.allErrors(seconds: 120)
      #expect(errors.count == 1, "\(errors)")
      #expect(errors.first?.contains("(2800 characters)") == true, "\(errors)")
      #expect(errors.first?.contains(key) == false)
      #expect((errors.first?.count ?? 0) < 400, "\(errors)")
      #expect(try server.psql("SELECT count(*) FROM shared_state") == "1")
    }
  }

  /// The other case: control characters, 6 bytes each in the JSON of a notification,
  /// made "payload string too long" (`NOTIFY` carries less than 8 000 bytes), although the key
  /// itself (1 400 bytes) fits the index.
  @Test func aKeyWhoseNotificationWouldPassNOTIFYsLimitIsRefused() async throws {
    try await PostgresServer.withServer { server in
      let store = try PostgresStore(url: server.url)
      let key = String(repeating: "\u{1}", count: 1400)
      @Shared(.postgres(key, store: store)) var controls = 0
      try expectRefusal($controls.loadError, of: key, naming: "NOTIFY")
      $controls.withLock { $0 = 1 }
      try expectRefusal($controls.saveError, of: key, naming: "NOTIFY")

      // One past the longest that fits with the namespace "default".
      let justOver = String(repeating: "\u{1}", count: 1322)
      @Shared(.postgres(justOver, store: store)) var over = 0
      $over.withLock { $0 = 1 }
      try expectRefusal($over.saveError, of: justOver, naming: "NOTIFY")

      // U+0000, which PostgreSQL's text cannot hold.
      @Shared(.postgres("a\u{0}b", store: store)) var nul = 0
      let error = try #require($nul.loadError as? PostgresStorageError)
      #expect(error.kind == .outsideLimits)
      #expect(String(describing: error).contains("U+0000"), "\(error)")

      // A namespace longer than 512 bytes, for its keys and for listing them.
      let namespace = Self.incompressible(513, seed: 9)
      let wide = try PostgresStore(url: server.url, namespace: namespace)
      @Shared(.postgres("k", store: wide)) var inWide = 0
      let wideError = try #require($inWide.loadError as? PostgresStorageError)
      #expect(wideError.kind == .outsideLimits)
      #expect(String(describing: wideError).contains("513 bytes"), "\(wideError)")
      #expect(throws: PostgresStorageError.self) { try wide.keys() }
    }
  }

  /// Keys at the limits are kept, read by another process, and notified to a watching one.
  @Test func keysJustWithinTheLimitsAreKeptAndNotified() async throws {
    try await PostgresServer.withServer { server in
      // The longest key in the longest namespace: 2 048 + 512 bytes that do not compress.
      let namespace = Self.incompressible(512, seed: 7)
      let key = Self.incompressible(2048, seed: 11)
      let store = try PostgresStore(url: server.url, namespace: namespace)
      @Shared(.postgres(key, store: store)) var longest = 0
      #expect($longest.loadError == nil)
      $longest.withLock { $0 = 5 }
      #expect($longest.saveError == nil)
      let get = try DemoProcess("get", "--postgres", server.url, "--namespace", namespace, "--key", key)
      #expect(try await get.allOutput(seconds: 120) == ["5"])

      // The longest key of control characters whose notification fits, followed by a watcher.
      let controls = String(repeating: "\u{1}", count: 1321)
      let watcher = try DemoProcess("watch", "--postgres", server.url, "--key", controls)
      defer { watcher.kill(SIGTERM) }
      #expect(try await watcher.nextLine(seconds: 120).hasSuffix(" null"))
      let defaultStore = try PostgresStore(url: server.url)
      @Shared(.postgres(controls, store: defaultStore)) var value = 0
      $value.withLock { $0 = 7 }
      #expect($value.saveError == nil)
      #expect(try await watcher.nextLine(seconds: 120).hasSuffix(" 7"))
    }
  }
}
