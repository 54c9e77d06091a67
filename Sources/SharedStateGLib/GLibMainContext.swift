import CGLib

/// A GLib main context (`GMainContext`): where a GLib main loop runs its sources, on the thread
/// that iterates it.
///
/// The object holds a reference to the context (`g_main_context_ref`) for as long as it lives.
/// Work handed to ``invoke(priority:_:)`` runs on the thread that iterates the context, the way GTK
/// requires for every widget.
///
/// ```swift
/// let loop = GLibMainContext.default
/// loop.invoke { label.text = "done" }  // later, on the thread that runs g_main_loop_run
/// ```
///
/// ## Topics
///
/// ### Contexts
/// - ``default``
/// - ``threadDefault``
/// - ``init(retaining:)``
///
/// ### Using one
/// - ``invoke(priority:_:)``
/// - ``isOwner``
/// - ``pointer``
public final class GLibMainContext: @unchecked Sendable, Equatable, CustomStringConvertible {
  // Sendable: the only state is a `GMainContext *` fixed at initialisation; GLib makes every
  // call made through it here (ref, unref, invoke, is_owner) safe from any thread — a main
  // context is GLib's object for handing work between threads.

  /// The `GMainContext *` this object refers to; valid while the object lives.
  public let pointer: OpaquePointer

  /// The global default context (`g_main_context_default()`): the one `g_main_loop_run`,
  /// `g_application_run` and GTK iterate on the main thread.
  public static var `default`: GLibMainContext {
    GLibMainContext(retaining: g_main_context_default())
  }

  /// The calling thread's thread-default context (`g_main_context_ref_thread_default()`): the
  /// one pushed with `g_main_context_push_thread_default` on this thread, or else the global
  /// default. GSettings and GIO deliver their signals there, measured where they are created.
  public static var threadDefault: GLibMainContext {
    let context = g_main_context_ref_thread_default()!
    defer { g_main_context_unref(context) }
    return GLibMainContext(retaining: context)
  }

  /// Refers to an existing context, taking a reference of its own (`g_main_context_ref`).
  ///
  /// - Parameter pointer: A `GMainContext *`, for example from `g_main_context_new()` (whose
  ///   own reference stays the caller's to release).
  public init(retaining pointer: OpaquePointer) {
    self.pointer = g_main_context_ref(pointer)
  }

  deinit {
    g_main_context_unref(pointer)
  }

  /// Whether the calling thread owns the context now (`g_main_context_is_owner`): true inside
  /// the callbacks of a loop running on it.
  public var isOwner: Bool {
    g_main_context_is_owner(pointer) != 0
  }

  /// Runs `work` once on the thread that iterates the context (`g_main_context_invoke_full`).
  ///
  /// When the calling thread owns the context (or it is this thread's default and free), the
  /// work runs before `invoke` returns; otherwise an idle source with `priority` is attached to
  /// the context and the work runs at its next iteration. The work and everything it captured
  /// are released once it has run, or when the source is destroyed without running (the
  /// context is freed, or removes its sources): never leaked, never run twice.
  ///
  /// - Parameters:
  ///   - priority: The source's priority; GLib's `G_PRIORITY_DEFAULT` (0) runs before GTK's
  ///     redraw (`G_PRIORITY_HIGH_IDLE + 20`), so a change is on screen in the same frame.
  ///   - work: What to run.
  public func invoke(priority: Int32 = 0, _ work: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(GLibWork(work)).toOpaque()
    g_main_context_invoke_full(
      pointer,
      priority,
      { box in
        Unmanaged<GLibWork>.fromOpaque(box!).takeUnretainedValue().run()
        return 0  // G_SOURCE_REMOVE: once.
      },
      box,
      { box in
        Unmanaged<GLibWork>.fromOpaque(box!).release()
      }
    )
  }

  /// Two objects are equal when they refer to the same context.
  public static func == (lhs: GLibMainContext, rhs: GLibMainContext) -> Bool {
    lhs.pointer == rhs.pointer
  }

  /// `GLibMainContext(0x…)`, with `default` for the global default context.
  public var description: String {
    pointer == g_main_context_default() ? "GLibMainContext(default)" : "GLibMainContext(\(pointer))"
  }
}
