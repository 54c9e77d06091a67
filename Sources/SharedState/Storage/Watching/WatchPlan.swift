import SystemPackage

/// Which directories to watch, decided from the directories that are wanted and those that
/// exist. Pure: it asks `exists` and nothing else, so it is tested without the kernel.
///
/// - A wanted directory that exists is watched for its files' changes.
/// - Its parent is watched too, for entries arriving or leaving, with the wanted directory's
///   name as a *guarded* name: when a process holds files of a removed directory open, the
///   kernel does not report the removal on the directory itself, only on its parent.
/// - A wanted directory that does not exist is waited for through its nearest existing
///   ancestor, guarding the name of the next directory on the way.
///
/// An entry arriving or leaving under a guarded name means the plan must be made again,
/// whatever the entry is: a symbolic link put where a suite was (as stow and home-manager do)
/// leads the path to another directory.
///
/// inotify cannot filter a directory's events by name, so the parent's watch hears every entry
/// made there (every file of `~/.config`, for a suite in it). It asks for no more than it
/// needs: the parent of a directory that exists is not asked for creations, since nothing can
/// be created at a name that is taken (the removal or move that frees the name comes first,
/// and makes a plan that waits for a creation). A file written in place there then wakes
/// nobody; a file renamed into place still does.
struct WatchPlan: Equatable, Sendable {
  /// What each watched path is watched for.
  private(set) var targets: [FilePath: InotifyEvents] = [:]
  /// For each watched path, the names of its entries that lead to a wanted directory.
  private(set) var guardedNames: [FilePath: Set<String>] = [:]
  /// The wanted directories that exist, so that their files' events count.
  private(set) var watchedDirectories: Set<FilePath> = []
  /// For each wanted directory, the path whose watch it depends on: itself when it exists,
  /// otherwise its nearest existing ancestor.
  private(set) var servingPath: [FilePath: FilePath] = [:]

  /// The events of a wanted directory's own watch.
  static let directoryEvents: InotifyEvents =
    InotifyEvents.entryChanges.union(InotifyEvents.watchEnded).union(.onlyDirectory)
  /// The events of a watch that only guards the name of a wanted directory that exists: its
  /// removal, or a move away or over it.
  static let guardEvents: InotifyEvents =
    InotifyEvents.entryDepartures.union(InotifyEvents.watchEnded).union(.onlyDirectory)
  /// The events of a watch that waits for the next directory on the way to a wanted directory
  /// that does not exist: its creation or arrival too.
  static let awaitEvents: InotifyEvents =
    InotifyEvents.entryArrivals.union(InotifyEvents.watchEnded).union(.onlyDirectory)

  /// The plan for `wanted` absolute, lexically normal directories.
  init(wanted: some Sequence<FilePath>, exists: (FilePath) -> Bool) {
    for directory in wanted {
      // Taken apart on their text (see `FilePath.directoryAndName`): a plan is made whenever
      // the wanted directories change, and no event is read meanwhile.
      if exists(directory) {
        targets[directory, default: []].formUnion(Self.directoryEvents)
        watchedDirectories.insert(directory)
        servingPath[directory] = directory
        if let (parent, name) = directory.directoryAndName, exists(parent) {
          guard_(name, in: parent, events: Self.guardEvents)
        }
      } else {
        var ancestor = directory
        var next = ""
        while let (parent, name) = ancestor.directoryAndName {
          (ancestor, next) = (parent, name)
          if exists(ancestor) { break }
        }
        guard_(next, in: ancestor, events: Self.awaitEvents)
        servingPath[directory] = ancestor
      }
    }
  }

  private mutating func guard_(_ name: String, in directory: FilePath, events: InotifyEvents) {
    targets[directory, default: []].formUnion(events)
    guardedNames[directory, default: []].insert(name)
  }

  /// Whether an entry called `name` arriving or leaving `directory` changes the plan.
  func isGuarded(_ name: String, in directory: FilePath) -> Bool {
    guardedNames[directory]?.contains(name) == true
  }
}
