import Dependencies
import SharedState
import Testing

@Suite("In-memory key")
struct InMemoryKeyTests {
  @Test func twoDeclarationsOfOneKeyAreOneState() {
    @Shared(.inMemory("count")) var first = 0
    @Shared(.inMemory("count")) var second = 10
    #expect(second == 0, "the second declaration's default is ignored: the state exists")
    $first.withLock { $0 = 3 }
    #expect(second == 3)
    $second.withLock { $0 += 1 }
    #expect(first == 4)
  }

  @Test func declarationsInDifferentTypesAreOneState() {
    struct Counter { @Shared(.inMemory("shared-count")) var count = 0 }
    struct Display { @SharedReader(.inMemory("shared-count")) var count = 0 }
    let counter = Counter()
    let display = Display()
    counter.$count.withLock { $0 += 5 }
    #expect(display.count == 5)
  }

  @Test func valueOutlivesItsLastReference() {
    do {
      @Shared(.inMemory("outlives")) var value = 0
      $value.withLock { $0 = 7 }
    }
    @Shared(.inMemory("outlives")) var again = 0
    #expect(again == 7)
  }

  @Test func sameNameWithAnotherTypeIsOtherState() {
    @Shared(.inMemory("typed")) var number = 1
    @Shared(.inMemory("typed")) var text = "one"
    $number.withLock { $0 = 2 }
    #expect(text == "one")
  }

  @Test func eachStorageHasItsOwnState() {
    @Shared(.inMemory("isolated")) var outer = 1
    withDependencies {
      $0.defaultInMemoryStorage = InMemoryStorage()
    } operation: {
      @Shared(.inMemory("isolated")) var inner = 2
      #expect(inner == 2)
      $inner.withLock { $0 = 3 }
    }
    #expect(outer == 1)
  }

  // The two tests below use one key name; each starts from the default, because each test gets
  // a fresh `defaultInMemoryStorage`.
  @Test func eachTestGetsItsOwnStorageA() {
    @Shared(.inMemory("per-test")) var value = 0
    #expect(value == 0)
    $value.withLock { $0 = 1 }
  }

  @Test func eachTestGetsItsOwnStorageB() {
    @Shared(.inMemory("per-test")) var value = 0
    #expect(value == 0)
    $value.withLock { $0 = 2 }
  }

  @Test func optionalStateStartsAsNil() {
    @Shared(.inMemory("optional")) var name: String?
    #expect(name == nil)
    $name.withLock { $0 = "Blob" }
    @SharedReader(.inMemory("optional")) var reader: String?
    #expect(reader == "Blob")
  }

  @Test func describesItself() {
    #expect(String(describing: InMemoryKey<Int>.inMemory("count")) == #".inMemory("count")"#)
  }
}
