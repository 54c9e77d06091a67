import Foundation

/// Runs `work`, which blocks its thread (starting a server, waiting for a program), on a thread
/// of its own, and waits for it without blocking.
///
/// The cooperative pool has as many threads as the machine has cores, two here: a test that
/// blocks one of them for seconds stalls every other asynchronous test of the run meanwhile
/// (a full run once held a test for 48 s that takes 0.7 s alone).
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread {
      continuation.resume(with: Result { try work() })
    }
  }
}
