import Dependencies
import Foundation
@testable import SharedState
import Testing

@Suite("Reference registry")
struct ReferenceRegistryTests {
  /// A default that is slow to compute must not hold the registry: another thread creating
  /// other shared state meanwhile goes ahead. Both sides run on threads of their own (not the
  /// tasks' shared pool, which a blocked wait could starve) and share one registry.
  @Test func aSlowDefaultDoesNotHoldUpOtherSharedState() async {
    let registry = ReferenceRegistry()
    let otherIsCreated = DispatchSemaphore(value: 0)
    Thread {
      withDependencies {
        $0[ReferenceRegistry.self] = registry
      } operation: {
        // Gives the default on the other thread time to start.
        Thread.sleep(forTimeInterval: 0.05)
        @Shared(.inMemory("other")) var other = 0
        _ = other
      }
      otherIsCreated.signal()
    }.start()
    let sawOther = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
      Thread {
        withDependencies {
          $0[ReferenceRegistry.self] = registry
        } operation: {
          @Shared(.inMemory("slow"))
          var sawOther = (otherIsCreated.wait(timeout: .now() + 5) == .success)
          continuation.resume(returning: sawOther)
        }
      }.start()
    }
    #expect(sawOther, "the other shared state was created while this default was computed")
  }
}
