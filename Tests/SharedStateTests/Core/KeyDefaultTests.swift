import SharedState
import Testing

extension SharedReaderKey where Self == InMemoryKey<Int>.Default {
  static var launchCount: Self { Self[.inMemory("launchCount"), default: 0] }
}

extension SharedReaderKey where Self == InMemoryKey<Bool>.Default {
  static var hasShownFirstLaunchOnboarding: Self {
    Self[.inMemory("hasShownFirstLaunchOnboarding"), default: false]
  }
}

@Suite("Keys with default values")
struct KeyDefaultTests {
  @Test func declarationNeedsNoDefault() {
    @Shared(.launchCount) var launchCount
    #expect(launchCount == 0)
    $launchCount.withLock { $0 += 1 }
    @SharedReader(.launchCount) var reader
    #expect(reader == 1)
  }

  @Test func isTheSameStateAsTheBareKey() {
    @Shared(.hasShownFirstLaunchOnboarding) var hasShown
    @Shared(.inMemory("hasShownFirstLaunchOnboarding")) var bare = true
    #expect(bare == false, "the default key created the state first")
    $bare.withLock { $0 = true }
    #expect(hasShown)
  }

  @Test func useSiteCanOverrideTheDefault() {
    @Shared(.launchCount) var launchCount = 42
    #expect(launchCount == 42)
  }

  @Test func defaultIsEvaluatedOnlyWhenNeeded() {
    @Shared(.inMemory("lazy-default")) var first = 1
    #expect(first == 1)
    // The state exists, so this default must never run.
    @Shared(.inMemory("lazy-default")) var second = neverCalled()
    #expect(second == 1)
  }

  @Test func exposesItsBaseAndDefault() {
    let key = InMemoryKey<Int>.Default.launchCount
    #expect(key.base.name == "launchCount")
    #expect(key.defaultValue == 0)
    #expect(key.id == InMemoryKey<Int>.inMemory("launchCount").id)
  }
}

private func neverCalled() -> Int {
  Issue.record("The default value was evaluated although the state existed.")
  return -1
}
