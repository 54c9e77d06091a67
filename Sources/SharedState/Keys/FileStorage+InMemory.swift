import ConcurrencyExtras
import Foundation

extension FileStorage {
  /// A fresh file system in memory that persists nothing: `.inMemory` is `.inMemory()`.
  public static var inMemory: FileStorage { .inMemory() }

  /// A file system in memory whose files are the entries of `fileSystem`, keyed by file URL,
  /// as swift-sharing's in-memory file storage keeps them.
  ///
  /// A test can read the table to see what was written, and put or change entries to prepare
  /// a file; a change made to the table directly is seen by the next read, but tells no
  /// `@Shared` (as a file changed behind the watcher's back).
  ///
  /// - Parameters:
  ///   - fileSystem: The files, by file URL (`URL(fileURLWithPath:)`).
  ///   - async: Runs the work that tells the other readers of a file about a write made through
  ///     this storage, off the writer's thread. The default runs it at once; a test scheduler
  ///     lets a test decide when they hear of it.
  ///   - asyncAfter: Never called. swift-sharing schedules its one-second write throttle with
  ///     it; this library writes every change before `withLock` returns (see "Differences from
  ///     swift-sharing"). Accepted so that code written for swift-sharing compiles.
  public static func inMemory(
    fileSystem: LockIsolated<[URL: Data]>,
    async: @escaping @Sendable (DispatchWorkItem) -> Void = { $0.perform() },
    asyncAfter: @escaping @Sendable (DispatchTimeInterval, DispatchWorkItem) -> Void = { $1.perform() }
  ) -> FileStorage {
    .inMemory(InMemoryFileSystem(files: fileSystem, schedule: async))
  }
}
