import ConcurrencyExtras
import SharedState
import Testing

/// What `withLock` does with a cross-process key's commit that throws. A commit that stored
/// nothing leaves the value as it was; one that stored its value and then failed
/// (`StoredWithSaveError`: a durable file write whose directory could not be flushed) leaves the
/// new value, which every process reads. Either way the error is the save error.
@Suite("Commits that throw")
struct CommitOutcomeTests {
  enum Outcome {
    case stored
    case nothingStored
    case storedThenFailed
  }

  /// The stored value and how the next commits end.
  final class Storage: Sendable {
    let value = LockIsolated(0)
    let outcome = LockIsolated(Outcome.stored)
  }

  /// A key whose `withLock` runs through a transaction, as file storage's does.
  struct CrossProcessTestKey: SharedKey, CrossProcessKey {
    let name: String
    let storage: Storage

    var id: String { name }

    func load(context: LoadContext<Int>, continuation: LoadContinuation<Int>) {
      continuation.resume(returning: storage.value.value)
    }

    func subscribe(context: LoadContext<Int>, subscriber: SharedSubscriber<Int>) -> SharedSubscription {
      SharedSubscription {}
    }

    func save(_ value: Int, context: SaveContext, continuation: SaveContinuation) {
      storage.value.setValue(value)
      continuation.resume()
    }

    func beginTransaction(receivingChange receive: (Result<Int?, any Error>) -> Void) -> any KeyTransaction {
      Transaction()
    }

    /// The key itself: it knows nothing of the stored value between transactions.
    func withOwnKnowledge() -> Self { self }

    func commit(_ value: Int, through transaction: any KeyTransaction) throws {
      switch storage.outcome.value {
      case .stored:
        storage.value.setValue(value)
      case .nothingStored:
        throw TestError(message: "refused")
      case .storedThenFailed:
        storage.value.setValue(value)
        throw StoredWithSaveError(TestError(message: "not flushed"))
      }
    }
  }

  final class Transaction: KeyTransaction {
    var readFailure: (any Error)? { nil }
    func end() {}
  }

  @Test func aCommitThatStoredNothingLeavesTheValue() {
    let storage = Storage()
    @Shared(CrossProcessTestKey(name: "nothing-stored", storage: storage)) var count = 0
    storage.outcome.setValue(.nothingStored)
    $count.withLock { $0 = 5 }
    #expect(count == 0)
    #expect(storage.value.value == 0)
    #expect($count.saveError as? TestError == TestError(message: "refused"))
  }

  @Test func aCommitThatStoredItsValueThenFailedKeepsTheValue() {
    let storage = Storage()
    @Shared(CrossProcessTestKey(name: "stored-then-failed", storage: storage)) var count = 0
    storage.outcome.setValue(.storedThenFailed)
    $count.withLock { $0 = 5 }
    #expect(count == 5, "the reference lost a value that is stored")
    #expect(storage.value.value == 5)
    #expect($count.saveError as? TestError == TestError(message: "not flushed"))

    // The next commit that ends well clears the error.
    storage.outcome.setValue(.stored)
    $count.withLock { $0 = 6 }
    #expect(count == 6)
    #expect($count.saveError == nil)
  }
}
