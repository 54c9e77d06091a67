import Foundation
import SharedState
import SharedStatePostgres
import Testing

/// What a URL error, a store, a key and a failed connection show: never a password. Ports
/// outside 1–65535 are refused.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
  @Test(arguments: [
    "postgres://app:SECRET/x@db.example.net/app",
    "postgres://app:SE#CRET@db.example.net/app",
    "postgres://app:SE?CRET@db.example.net:5432/app",
    "postgres://app:SECRET@db.example.net:abc/app",
    "postgres://app:SECRET@db.example.net:70000/app",
    "postgres://app:SECRET@db.example.net:0/app",
    "postgres://app@db.example.net/app?password=SECRET&sslmode=require",
    "postgres://app@db.example.net/app?PassWord=SECRET&sslmode=verify-full",
    "postgres://app:SECRET@db.example.net/app?sslmode=require",
    "mysql://app:SECRET@db.example.net/app",
    "host=db.example.net user=app password=SECRET",
    "app:SECRET@db.example.net/app",
  ])
  func anUnusableURLIsNeverRepeatedWithItsPassword(url: String) throws {
    let error = try #require(throws: PostgresURLError.self) { try PostgresStore(url: url) }
    #expect(!error.url.contains("SECRET"), "\(error.url)")
    #expect(!String(describing: error).contains("SECRET"), "\(error)")
    #expect(!String(reflecting: error).contains("SECRET"), "\(error)")
    var dumped = ""
    dump(error, to: &dumped)
    #expect(!dumped.contains("SECRET"), "\(dumped)")
    #expect(String(describing: error).contains("***"), "\(error)")
  }

  @Test func portsOutsideOneTo65535AreRefused() throws {
    for port in [0, 65536, 65536 + 5432, 1_000_000] {
      let error = try #require(throws: PostgresURLError.self) { try PostgresStore(url: "postgres://app@localhost:\(port)/app") }
      #expect(error.problem == "port \(port) is not a TCP port (1 to 65535)")
    }
    #expect(try PostgresStore(url: "postgres://app@localhost:65535/app").server == "localhost:65535")
    #expect(try PostgresStore(url: "postgres://app@localhost:1/app").server == "localhost:1")
  }

  @Test func aStoreAndAKeyShowNoPassword() throws {
    let store = try PostgresStore(url: "postgres://app:SECRET@localhost:5999/app?password=SECRET2", namespace: "n")
    let key = PostgresKey<Int>.postgres("counter", store: store)
    for shown in [String(describing: store), String(reflecting: store), String(describing: key), String(reflecting: key)] {
      #expect(!shown.contains("SECRET"), "\(shown)")
    }
    var dumped = ""
    dump(store, to: &dumped)
    dump(key, to: &dumped)
    #expect(!dumped.contains("SECRET"), "\(dumped)")
  }

  @Test func aParsableURLKeepsEverythingButThePassword() throws {
    let error = try #require(throws: PostgresURLError.self) {
      try PostgresStore(url: "postgres://app:SECRET@db.example.net:5433/app?sslmode=require&password=SECRET2")
    }
    #expect(error.url == "postgres://app:***@db.example.net:5433/app?sslmode=require&password=***")
  }

  // MARK: With a server

  @Test(.postgresInstalled)
  func aServerThatAsksForAPasswordGetsSentencesThatNeverRepeatIt() async throws {
    try await PostgresServer.withServer { server in
      let password = "Pa55-w0rd-SECRET"
      try server.psql("SET password_encryption = 'scram-sha-256'; CREATE ROLE secretive LOGIN PASSWORD '\(password)'; GRANT ALL ON SCHEMA public TO secretive")
      try server.requirePassword(for: "secretive")
      let base = "127.0.0.1:\(server.port)/postgres"

      let none = try DemoProcess("get", "--postgres", "postgres://secretive@\(base)", "--key", "counter")
      #expect(try await none.waitForExit() == 1)
      let noneSaid = try await none.allErrors()
      #expect(noneSaid.count == 1, "\(noneSaid)")
      #expect(noneSaid.first?.contains("the server asks for a password, and none was given") == true, "\(noneSaid)")

      let wrong = try DemoProcess("get", "--postgres", "postgres://secretive:WRONG-\(password)@\(base)", "--key", "counter")
      #expect(try await wrong.waitForExit() == 1)
      let wrongSaid = try await wrong.allErrors()
      #expect(wrongSaid.first?.contains("password authentication failed") == true, "\(wrongSaid)")
      #expect(!wrongSaid.joined().contains(password), "\(wrongSaid)")

      let query = try DemoProcess("get", "--postgres", "postgres://secretive@\(base)?password=WRONG-\(password)", "--key", "counter")
      #expect(try await query.waitForExit() == 1)
      #expect(!(try await query.allErrors()).joined().contains(password))

      // A URL that does not parse (an unencoded `/` in the password) is refused without it.
      let unparsable = try DemoProcess("get", "--postgres", "postgres://secretive:\(password)/x@\(base)", "--key", "counter")
      #expect(try await unparsable.waitForExit() != 0)
      let unparsableSaid = try await unparsable.allErrors().joined(separator: "\n")
      #expect(unparsableSaid.contains("cannot be parsed"), "\(unparsableSaid)")
      #expect(!unparsableSaid.contains(password), "\(unparsableSaid)")

      // The right password works, in the authority or in the query.
      let set = try DemoProcess("set", "--postgres", "postgres://secretive:\(password)@\(base)", "--key", "counter", "3")
      let setStatus = try await set.waitForExit()
      let setSaid = try await set.allErrors()
      #expect(setStatus == 0 && setSaid.isEmpty, "\(setSaid)")
      let get = try DemoProcess("get", "--postgres", "postgres://secretive@\(base)?password=\(password)", "--key", "counter")
      #expect(try await get.allOutput() == ["3"])
    }
  }

  @Test(.postgresInstalled)
  func aPortBeyond65535IsRefusedInsteadOfWrappingAround() async throws {
    try await PostgresServer.withServer { server in
      // 65536 + the server's port would reach the server if the port were cut to 16 bits.
      let wrapped = "postgres://postgres:SECRET@127.0.0.1:\(65536 + server.port)/postgres"
      let get = try DemoProcess("get", "--postgres", wrapped, "--key", "counter")
      #expect(try await get.waitForExit() != 0)
      let said = try await get.allErrors().joined(separator: "\n")
      #expect(said.contains("port \(65536 + server.port) is not a TCP port"), "\(said)")
      #expect(!said.contains("SECRET"), "\(said)")
    }
  }
}
