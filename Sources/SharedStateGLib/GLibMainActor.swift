import CGLib
import Foundation
import Synchronization

/// Swift's main actor inside GLib's main loop: one call at start-up, and `Task { @MainActor }`,
/// `DispatchQueue.main.async` and everything else that runs on the main actor run in a GTK
/// program.
///
/// On Linux the main actor's executor is Dispatch's main queue, and nothing drains that queue
/// while `g_application_run` or `g_main_loop_run` holds the main thread. ``install()`` adds a
/// source to GLib's default main context that drains it whenever it has work, woken by the
/// queue's own event descriptor (the pair of libdispatch hooks Foundation's run loop uses), so
/// it costs nothing while idle and runs main-actor work at the loop's next iteration:
///
/// ```swift
/// import SharedStateGLib
///
/// GLibMainActor.install()        // synchronous main, on the main thread
/// SharedChangeDelivery.default = .glibMainContext()
/// let status = g_application_run(application, argc, argv)
/// ```
///
/// ### Constraints
///
/// - **A synchronous `main`.** With an `async` `main` the main thread belongs to Dispatch
///   (it runs `dispatchMain()`), and GLib's loop would run inside a main-actor job. Use a
///   `main.swift` or a synchronous `static func main()`.
/// - **No `dispatchMain()`**, ever, in the process: libdispatch's hook crashes once it has run.
/// - **Not re-entrant.** A main-actor job that runs a nested loop (`g_main_context_iteration`,
///   a modal wait) does not see later main-actor work until it returns: the queue is already
///   being drained, and the hook returns at once. GTK 4 has no nested loops of its own.
/// - **The default main context, on the main thread.** The main queue runs only on the main
///   thread, so the loop that drains it is the one the main thread iterates.
///
/// ## Topics
///
/// ### Installing the bridge
/// - ``install()``
/// - ``isInstalled``
public enum GLibMainActor {
  /// The GLib source id of the bridge once installed.
  private static let source = Mutex<UInt32?>(nil)

  /// Whether ``install()`` has run in this process.
  public static var isInstalled: Bool {
    source.withLock { $0 != nil }
  }

  /// Adds the bridge to GLib's default main context: a source watching the main queue's event
  /// descriptor (`g_unix_fd_add_full`), whose callback reads the descriptor and runs the main
  /// queue's work (`_dispatch_main_queue_callback_4CF`).
  ///
  /// Call it once, on the main thread, before the loop runs (before `g_application_run`);
  /// later calls do nothing. Work already waiting on the main queue runs at the loop's first
  /// iteration.
  public static func install() {
    precondition(
      Thread.isMainThread,
      "GLibMainActor.install() must be called on the main thread, which runs the main queue"
    )
    source.withLock { source in
      guard source == nil else { return }
      let descriptor = _dispatch_get_main_queue_handle_4CF()
      precondition(descriptor >= 0, "libdispatch has no event descriptor for the main queue")
      // Dispatch's eventfd is non-blocking already; making sure costs one call, and a blocking
      // read in the callback would freeze the loop.
      let flags = fcntl(descriptor, F_GETFL)
      if flags >= 0, flags & O_NONBLOCK == 0 {
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
      }
      source = g_unix_fd_add_full(
        0,  // G_PRIORITY_DEFAULT
        descriptor,
        G_IO_IN,
        { descriptor, _, _ in
          // Reset the eventfd first: work enqueued while draining writes it again and wakes
          // the loop once more. Unread, GLib would call back without end.
          var count: UInt64 = 0
          _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
          _dispatch_main_queue_callback_4CF(nil)
          return 1  // G_SOURCE_CONTINUE
        },
        nil,
        nil
      )
      // Work enqueued before the descriptor existed woke nobody: drain once when the loop
      // starts.
      g_idle_add_full(
        0,
        { _ in
          _dispatch_main_queue_callback_4CF(nil)
          return 0  // G_SOURCE_REMOVE
        },
        nil,
        nil
      )
    }
  }
}
