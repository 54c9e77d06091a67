import Foundation

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
    keep(look(on: .event).freshness) != .unchanged
  }

  /// Keeps what a look found for the delivery and the read, and returns it.
  private func keep(_ freshness: Freshness) -> Freshness {
    state.withLock { $0.admitted = freshness }
    return freshness
  }

  /// Tells `onEvent` of an admitted replacement, judged by the look made at admission when there
  /// was one, otherwise by a look now (mapping the page).
  ///
  /// While another write is under way its own event follows, so nothing is delivered now (a
  /// watcher reading then would wait for that writer): the change is looked at again a little
  /// later instead, in case that writer died mid-write.
  private func deliver(_ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    let admitted = state.withLock { $0.admitted }
    if case .changed = admitted { return onEvent(.replaced) }
    let look = lookNow()
    switch look.freshness {
    case .unchanged:
      break
    case .changed, .unlooked:
      onEvent(.replaced)
    case .busy:
      let isScheduled = state.withLock { state in
        defer { state.isRecheckScheduled = true }
        return state.isRecheckScheduled
      }
      if !isScheduled { scheduleRecheck(busyAt: look.sequence, onEvent) }
    }
  }

  /// Looks again in a moment at a change seen while a write was under way (at `sequence`).
  /// Delivered when the look finds a change, or the same write still under way (its writer may
  /// have died: the read that follows waits for its lock, which its death releases). A write
  /// that has moved on since is alive, and its events follow: the look is made again later, until
  /// it finds no write under way, or the handle is gone.
  private func scheduleRecheck(busyAt sequence: UInt64, _ onEvent: @escaping @Sendable (FileWatchEvent) -> Void) {
    // Weak: while other processes write on, the looks go on, and they must not keep a handle
    // whose watch has ended.
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(10)) { [weak self] in
      guard let self else { return }
      let look = lookNow()
      if look.freshness == .busy, look.sequence != sequence {
        return scheduleRecheck(busyAt: look.sequence, onEvent)
      }
      state.withLock { $0.isRecheckScheduled = false }
      if look.freshness != .unchanged { onEvent(.replaced) }
    }
  }

  /// The one look on the occasion of a delivery, which may map the page and wait a moment for a
  /// writer; kept for the read that follows.
  private func lookNow() -> (freshness: Freshness, sequence: UInt64) {
    let look = self.look(on: .delivery)
    return (keep(look.freshness), look.sequence)
  }
}
