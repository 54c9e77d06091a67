import ConcurrencyExtras
import SharedState
import Testing

@Suite("Shared: values, references and withLock")
struct SharedTests {
  @Test func valueInitialiserHoldsTheValue() {
    let count = Shared(value: 1)
    #expect(count.wrappedValue == 1)
  }

  @Test func copiesShareOneState() {
    let count = Shared(value: 0)
    let copy = count
    let rewrapped = Shared(projectedValue: count)
    copy.withLock { $0 = 7 }
    #expect(count.wrappedValue == 7)
    #expect(rewrapped.wrappedValue == 7)
  }

  @Test func projectedValueIsTheSharedItself() {
    @Shared(value: 3) var count: Int
    $count.withLock { $0 += 1 }
    #expect(count == 4)
    #expect($count.wrappedValue == 4)
  }

  @Test func withLockReturnsWhatTheClosureReturns() {
    let count = Shared(value: 41)
    let result = count.withLock { value -> String in
      value += 1
      return "now \(value)"
    }
    #expect(result == "now 42")
    #expect(count.wrappedValue == 42)
  }

  @Test func throwingClosureKeepsAndSavesNothing() throws {
    let backend = TestBackend<Int>(stored: 1)
    @Shared(TestKey(name: "throwing", backend: backend)) var count = 0
    #expect(throws: TestError.self) {
      try $count.withLock { value in
        value = 100
        throw TestError()
      }
    }
    #expect(count == 1)
    #expect(backend.savedValues.value.isEmpty)
  }

  @Test func nestedWithLockOnOneStateDoesNotDeadlock() {
    let count = Shared(value: 0)
    let inner = count.withLock { _ in
      count.withLock { value -> Int in
        value = 5
        return value
      }
    }
    #expect(inner == 5)
  }

  @Test func deprecatedSetterWritesThroughWithLock() {
    let backend = TestBackend<Int>()
    let count = Shared(wrappedValue: 0, TestKey(name: "setter", backend: backend))
    let legacy: any LegacyAssignment = LegacyCode()
    legacy.assign(9, to: count)
    #expect(count.wrappedValue == 9)
    #expect(backend.savedValues.value == [9])
  }

  @Test func equatableIdentifiableAndDescription() {
    struct User: Equatable, Identifiable, CustomStringConvertible {
      let id: Int
      var name: String
      var description: String { "User \(name)" }
    }
    let a = Shared(value: User(id: 1, name: "Blob"))
    let b = Shared(value: User(id: 1, name: "Blob"))
    #expect(a == b)
    b.withLock { $0.name = "Blob Jr." }
    #expect(a != b)
    #expect(a.id == 1)
    #expect(a.description == "Shared<User>(value: User Blob)")
    #expect(SharedReader(a) == SharedReader(value: User(id: 1, name: "Blob")))
  }

  @Test func thousandTasksOfTenIncrementsEndAtTenThousand() async {
    let count = Shared(value: 0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1_000 {
        group.addTask {
          for _ in 0..<10 {
            count.withLock { $0 += 1 }
          }
        }
      }
    }
    #expect(count.wrappedValue == 10_000)
  }

  @Test func thousandTasksOnAnInMemoryKeyEndAtTenThousand() async {
    @Shared(.inMemory("tasks")) var count = 0
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<1_000 {
        group.addTask { [$count] in
          for _ in 0..<10 {
            $count.withLock { $0 += 1 }
          }
        }
      }
    }
    #expect(count == 10_000)
  }
}

/// Code written before `withLock`, assigning through the deprecated setter. Called through a
/// protocol so that the tests exercise the setter without a deprecation warning of their own.
protocol LegacyAssignment {
  func assign(_ value: Int, to shared: Shared<Int>)
}

struct LegacyCode: LegacyAssignment {
  @available(*, deprecated)
  func assign(_ value: Int, to shared: Shared<Int>) {
    shared.wrappedValue = value
  }
}
