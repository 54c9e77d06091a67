import SharedState
import Testing

@Suite("Deprecated names")
struct DeprecatedNamesTests {
  @Test func olderKeyNamesStillWork() {
    let legacy: any LegacyKeyMaking = LegacyKeys()
    let count = legacy.makeShared()
    count.withLock { $0 += 1 }
    #expect(count.wrappedValue == 1)
  }
}

/// Code written against the older names, reached through a protocol so that the test itself
/// raises no deprecation warning.
protocol LegacyKeyMaking {
  func makeShared() -> Shared<Int>
}

struct LegacyKeys: LegacyKeyMaking {
  @available(*, deprecated)
  struct Constant: PersistenceKey {
    var id: String { "legacy" }
    func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
      continuation.resumeReturningInitialValue()
    }
    func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
      .empty
    }
    func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
      continuation.resume()
    }
  }

  @available(*, deprecated)
  func makeShared() -> Shared<Int> {
    let reader: any PersistenceReaderKey<Int> = Constant()
    _ = reader
    let defaulted: PersistenceKeyDefault<Constant> = PersistenceKeyDefault[Constant(), default: 0]
    return Shared(defaulted)
  }
}
