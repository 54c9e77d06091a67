/// How soon the ``InotifyReader`` waits again after a wake-up: in a burst of writes, it pauses
/// briefly first, so that one wake-up reads the events of many writes.
///
/// Every write raises events in every process that watches its directory, the writer's own
/// included. Woken once per write, the watching threads of a few busy processes take more of a
/// small machine's cores than the writers do, and each wake-up can preempt a writer in the
/// middle of its write (measured on 2 cores: the protocol's floor in C, at 4 processes, falls
/// from about 2 × SQLite's increments per second to 0.4–0.6 × once every process watches, and
/// rises to 0.7–1.1 × with this pacing; SharedState's rise by a quarter or more at 1 process,
/// its CPU per increment halves).
///
/// A wake-up that follows the previous one within ``burstGap`` starts or continues a burst;
/// in a burst, the reader waits again no sooner than ``pause`` after the last wake-up. After
/// a quiet moment nothing is paced: the first write is read as soon as the kernel reports it,
/// so the latency of an isolated change does not move, and a change in a burst waits at most
/// ``pause`` more.
///
/// A pure decision from the times it is given; ``InotifyReader`` reads the clock and sleeps.
struct ReadingPace: Equatable, Sendable {
  /// Wake-ups closer together than this, in nanoseconds, make a burst.
  let burstGap: UInt64
  /// In a burst, the least time in nanoseconds between a wake-up and the next wait.
  let pause: UInt64
  /// A wait for an event that lasted at least this long, in nanoseconds, was a wake-up: the
  /// event was neither in the library's buffer nor in the kernel's queue when it began.
  let wokenAfter: UInt64

  /// When the last wake-up ended.
  private var lastWakeUp: UInt64?
  /// Whether the last wake-up followed the one before within `burstGap`.
  private(set) var isInBurst = false

  init(burstGap: UInt64 = 1_000_000, pause: UInt64 = 100_000, wokenAfter: UInt64 = 10_000) {
    self.burstGap = burstGap
    self.pause = pause
    self.wokenAfter = wokenAfter
  }

  /// How long to sleep, at `now`, before waiting for the next event: what is left of `pause`
  /// since the last wake-up in a burst, zero otherwise.
  func pause(at now: UInt64) -> UInt64 {
    guard isInBurst, let lastWakeUp else { return 0 }
    let due = lastWakeUp &+ pause
    return due > now ? due - now : 0
  }

  /// Notes a wait for an event that began at `start` and ended at `end`.
  mutating func waited(from start: UInt64, to end: UInt64) {
    guard end &- start >= wokenAfter else { return }
    if let lastWakeUp {
      isInBurst = end &- lastWakeUp < burstGap
    }
    lastWakeUp = end
  }
}
