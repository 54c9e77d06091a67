/// Watching: each replacement event is judged by one look at the page and the target name.
///
/// On the thread that reads events, the look is made without waiting, and only when this
/// process has the page mapped: most replacements are this process's own writes or ones the
/// page already showed, and dropped there they wake no other thread. What the look found is kept
/// for the delivery and for the read the delivery prompts, which look no further.
extension DiskFile {
  func watch(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) -> WatchToken {
    // Strong, not weak (see PathResources' registry): the token's owner decides how long the
    // handle lives, and the handle holds nothing that leads back to the token.
    DirectoryWatcher.shared.watch(
      directory: resources.paths.directory,
      name: resources.paths.name,
      admitting: { [self] event in event != .replaced || admit() }
    ) { [self] event in
      if event == .replaced { deliver(onEvent) } else { onEvent(event) }
    }
  }

  /// Whether a replacement event is worth delivering, from the one look on the occasion of an
  /// event (no waiting, no mapping). A key whose page is not mapped yet is admitted unlooked
  /// (``Freshness/unlooked``): mapping it is the delivering thread's work.
  private func admit() -> Bool {
    !keep(look(on: .event).freshness).isUnchanged
  }

  /// Keeps what a look found for the delivery and the read, and returns it.
  private func keep(_ freshness: Freshness) -> Freshness {
    state.withLock { $0.admitted = freshness }
    return freshness
  }

  /// Tells `onEvent` of an admitted replacement, judged by the look made at admission when there
  /// was one, otherwise by a look now (mapping the page).
  ///
  /// A replacement seen while a write is under way is delivered too: the read that follows takes
  /// the file as it is without waiting for that writer (see ``reading(on:)``).
  private func deliver(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    let admitted = state.withLock { $0.admitted }
    if case .changed = admitted { return onEvent(.replaced) }
    if !lookNow().isUnchanged { onEvent(.replaced) }
  }

  /// Makes the delivery ``transactionResumesDeliveries()`` said is still to be made on this
  /// thread, which has just let go of the reference's lock: handing it to a thread of the pool
  /// (and waking it) cost more than the delivery. Only when it cannot wait: a change the page
  /// describes, or a write under way (read without any lock). One the look cannot vouch for (a
  /// value larger than the page, which is read under the path's lock, for as long as another
  /// process's `withLock` holds it; a write in place) goes to the pool as a write in place, as
  /// ``deliverDeferred()`` sends it.
  func deliverDeferredHere() {
    switch lookNow() {
    case .changed(_?), .busy:
      DirectoryWatcher.shared.deliverHere(.replaced, toFile: resources.paths.name, in: resources.paths.directory)
    case .unchanged, .changed(nil), .unlooked:
      deliverDeferred()
    }
  }

  /// The one look on the occasion of a delivery, which may map the page; kept for the read that
  /// follows.
  private func lookNow() -> Freshness {
    keep(look(on: .delivery).freshness)
  }
}
