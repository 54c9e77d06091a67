import SharedState

extension SharedChangeDelivery {
  /// On a GLib main context: observers run on the thread that iterates it, inside its loop —
  /// where a GTK program may touch its widgets.
  ///
  /// ```swift
  /// // At start-up, on the main thread, before opening shared state:
  /// SharedChangeDelivery.default = .glibMainContext()
  /// ```
  ///
  /// Each delivery is one `g_main_context_invoke_full` at `G_PRIORITY_DEFAULT`: from the
  /// library's threads it becomes an idle source that runs at the loop's next iteration; on a
  /// thread that owns the context it runs at once. A burst of changes that arrives while a
  /// delivery waits for the loop collapses to its latest value (the library asks for at most one
  /// delivery per shared value at a time). A delivery is released once it has run, or with its
  /// source when the context is freed before running it.
  ///
  /// The loop must run: a context that nobody iterates keeps its deliveries waiting. Unlike
  /// `SharedChangeDelivery.mainActor`, this delivery needs no bridge; the main actor's own work (a
  /// `Task { @MainActor in … }`) still needs ``GLibMainActor/install()``.
  ///
  /// - Parameter context: Where observers run; by default the thread-default context of the
  ///   thread that asks for the delivery (``GLibMainContext/threadDefault``), as GSettings
  ///   does: on the main thread of a GTK program, the context `g_application_run` iterates.
  public static func glibMainContext(
    _ context: GLibMainContext = .threadDefault
  ) -> SharedChangeDelivery {
    .custom("glibMainContext(\(context))") { work in
      context.invoke(work)
    }
  }
}
