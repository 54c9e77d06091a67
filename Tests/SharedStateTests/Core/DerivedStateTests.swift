import SharedState
import Testing

private struct User: Equatable, Sendable {
  var name: String
  var nickname: String?
  var settings = Settings()

  struct Settings: Equatable, Sendable {
    var isDarkMode = false
  }

  var greeting: String { "Hello, \(name)" }
}

@Suite("Derived shared state")
struct DerivedStateTests {
  @Test func memberOfSharedIsShared() {
    let user = Shared(value: User(name: "Blob"))
    let name: Shared<String> = user.name
    name.withLock { $0 = "Blob Jr." }
    #expect(user.wrappedValue.name == "Blob Jr.")
    user.withLock { $0.name = "Blob Sr." }
    #expect(name.wrappedValue == "Blob Sr.")
  }

  @Test func nestedMembersChain() {
    let user = Shared(value: User(name: "Blob"))
    let darkMode = user.settings.isDarkMode
    darkMode.withLock { $0.toggle() }
    #expect(user.wrappedValue.settings.isDarkMode)
  }

  @Test func readOnlyMemberIsSharedReader() {
    let user = Shared(value: User(name: "Blob"))
    let greeting: SharedReader<String> = user.greeting
    #expect(greeting.wrappedValue == "Hello, Blob")
    user.withLock { $0.name = "Blob Jr." }
    #expect(greeting.wrappedValue == "Hello, Blob Jr.")
  }

  @Test func readerOfShared() {
    let user = Shared(value: User(name: "Blob"))
    let reader = SharedReader(user)
    let name = reader.name
    user.withLock { $0.name = "Blob Jr." }
    #expect(reader.wrappedValue.name == "Blob Jr.")
    #expect(name.wrappedValue == "Blob Jr.")
  }

  @Test func unwrapsAnOptional() throws {
    let user = Shared(value: User(name: "Blob"))
    #expect(Shared(user.nickname) == nil)
    user.withLock { $0.nickname = "Blobby" }
    let nickname = try #require(Shared(user.nickname))
    #expect(nickname.wrappedValue == "Blobby")
    nickname.withLock { $0 += "!" }
    #expect(user.wrappedValue.nickname == "Blobby!")
  }

  @Test func unwrappedKeepsItsLastValueWhenTheOptionalBecomesNil() throws {
    let user = Shared(value: User(name: "Blob", nickname: "Blobby"))
    let nickname = try #require(Shared(user.nickname))
    user.withLock { $0.nickname = nil }
    #expect(nickname.wrappedValue == "Blobby")
    nickname.withLock { $0 = "ignored" }
    #expect(user.wrappedValue.nickname == nil, "writing to a vanished value changes nothing")
  }

  @Test func unwrapsAnOptionalReader() throws {
    let reader = SharedReader(value: Optional("text"))
    let unwrapped = try #require(SharedReader(reader))
    #expect(unwrapped.wrappedValue == "text")
    #expect(SharedReader(SharedReader<Int?>(value: nil)) == nil)
  }

  @Test func derivedStateOfAKeyIsThatKeysState() {
    @Shared(.inMemory("derived-user")) var user = User(name: "Blob")
    $user.name.withLock { $0 = "Blob Jr." }
    @SharedReader(.inMemory("derived-user")) var reader = User(name: "unused")
    #expect(reader.name == "Blob Jr.")
  }
}
