import Foundation
import Testing

@testable import SharedState

/// Code inside a `withLock` body that reaches the same file another way: a read goes ahead
/// under the lock the thread holds, and a second transaction is refused with a clear error
/// rather than waiting for itself.
@Suite("File storage: the same file reached again inside withLock")
struct NestedAccessTests {
  // A deadlock here would otherwise hang the run: the time limit makes it a failure.
  @Test(.timeLimit(.minutes(1)))
  func aReadInsideWithLockSeesTheValueAndASecondWriteIsRefused() throws {
    let directory = try TemporaryDirectory()
    let suite = AppStorageSuite(directory: URL(fileURLWithPath: directory.path("suite")))
    @Shared(.appStorage("count", store: suite)) var count = 0
    $count.withLock { $0 = 1 }

    var readInside: Int?
    var refusal: (any Error)?
    $count.withLock { value in
      readInside = try? suite.value(forKey: "count", as: Int.self)
      do {
        try suite.write(2, forKey: "count")
      } catch {
        refusal = error
      }
      value = 3
    }

    #expect(readInside == 1)
    let error = try #require(refusal as? FileStorageError)
    #expect(error.reason == .unwritable)
    #expect(error.underlying is NestedTransaction)
    let message = String(describing: error)
    #expect(message.contains("could not be written"), "\(message)")
    #expect(message.contains("already being changed on this thread"), "\(message)")
    #expect(count == 3)
    #expect(try suite.value(forKey: "count", as: Int.self) == 3)
  }
}
