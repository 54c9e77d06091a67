import Dispatch
import Foundation
import Synchronization

/// Where observers receive the changes that reach a shared value from other processes.
///
/// Observers are Observation's change handlers, ``Shared/publisher`` subscribers,
/// ``Shared/values`` iterations and everything else that watches a shared value. A change this
/// process makes (``Shared/withLock(_:)``, a save) reaches them on the thread that made it, once
/// the locks are released, as with swift-sharing; so does a change a custom key's subscription
/// yields, on the thread the key yields it on. A change from another process that the library's
/// own keys bring (file storage, app storage, PostgreSQL) is handed to the delivery chosen here,
/// once its value is committed to the shared value:
///
/// ```swift
/// // A command-line program whose main thread never runs the main queue:
/// SharedChangeDelivery.default = .immediate
/// ```
///
/// Whatever the delivery, each observer sees one key's values in the order they were committed,
/// never an older value after a newer one; a burst of changes that arrives while a delivery is
/// still waiting to run collapses to its latest value. No observer ever runs while a lock of the
/// library is held.
///
/// ## Topics
///
/// ### Deliveries
/// - ``mainActor``
/// - ``immediate``
/// - ``dispatchQueue(_:)``
/// - ``custom(_:schedule:)``
///
/// ### Choosing one
/// - ``default``
public struct SharedChangeDelivery: Sendable, CustomStringConvertible {
  /// Runs a delivery's work where it belongs; called at most once per shared value until that
  /// work has run.
  let schedule: @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
  /// Whether the work runs at once, on the thread that hands it over.
  let isImmediate: Bool
  /// The name in messages and descriptions.
  let name: String

  /// The main actor (Dispatch's main queue): the default, and what UI code wants.
  ///
  /// A `@MainActor` model that subscribes to `$value.publisher` receives other processes' changes
  /// on the main thread. The main queue must run: an `async` `main`, `dispatchMain()`, a
  /// Foundation run loop, or in a GTK program the bridge of `SharedStateGLib`. A delivery that has
  /// waited two seconds makes the library say why, once, on standard error: either the main
  /// actor is busy (the program runs the main queue, or its main thread is computing), and the
  /// change arrives when it is free; or the program does not run the main queue at all, with
  /// what to do (run it; or, only when no observer is main-actor code, choose ``immediate``).
  public static let mainActor = SharedChangeDelivery(
    schedule: { work in
      MainQueueWatch.shared.delivery(scheduled: work)
    },
    isImmediate: false,
    name: "mainActor"
  )

  /// On the library's own thread that noticed the change, right after it was committed.
  ///
  /// For programs without a UI whose main thread never runs the main queue (a synchronous
  /// `main`, a loop that blocks). Observers must then be safe to call from any thread.
  public static let immediate = SharedChangeDelivery(
    schedule: { work in work() },
    isImmediate: true,
    name: "immediate"
  )

  /// On a Dispatch queue, asynchronously.
  ///
  /// - Parameter queue: The queue that runs the observers. A serial queue keeps them from
  ///   running at the same time as each other; the library already never runs one shared value's
  ///   observers twice at once.
  public static func dispatchQueue(_ queue: DispatchQueue) -> SharedChangeDelivery {
    SharedChangeDelivery(
      schedule: { work in queue.async(execute: work) },
      isImmediate: false,
      name: "dispatchQueue(\(queue.label))"
    )
  }

  /// Wherever `schedule` runs the work it is given: for event loops of your own (a GLib main
  /// context, an editor's loop).
  ///
  /// - Parameters:
  ///   - name: What messages and ``description`` call this delivery.
  ///   - schedule: Must run the work it receives exactly once, soon, on the thread or context
  ///     the observers expect, and must not run it while holding a lock the observers might
  ///     need. It may run it before returning.
  public static func custom(
    _ name: String,
    schedule: @escaping @Sendable (_ work: @escaping @Sendable () -> Void) -> Void
  ) -> SharedChangeDelivery {
    SharedChangeDelivery(schedule: schedule, isImmediate: false, name: name)
  }

  /// The delivery of every shared value in this process: ``mainActor`` unless the program
  /// chooses another, best once at start-up, before it opens shared state.
  public static var `default`: SharedChangeDelivery {
    get { current.withLock { $0 } }
    set { current.withLock { $0 = newValue } }
  }

  private static let current = Mutex(SharedChangeDelivery.mainActor)

  /// `SharedChangeDelivery.mainActor`, `.immediate`, …
  public var description: String { "SharedChangeDelivery.\(name)" }
}
