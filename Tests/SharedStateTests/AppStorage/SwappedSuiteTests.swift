import Foundation
import Testing
import TestSupport

/// A suite directory replaced by a symbolic link while processes watch it, as stow and
/// home-manager do: the watchers follow the path to the new directory.
@Suite("App storage: a suite swapped for a symbolic link")
struct SwappedSuiteTests {
  /// How the swap is made, in a shell: `$S` is the suite's path, `$NEW` the directory the link
  /// leads to. The first step frees the name; the watcher shows the default (0) before the
  /// second puts the link there, so that the link surely comes after the watcher has noticed
  /// the directory gone.
  enum Swap: CaseIterable {
    /// The suite moved aside, then a link in its place.
    case movedAside
    /// The suite removed, then a link in its place.
    case removed
    /// A link to one directory replaced, by a rename, with a link to another: no directory
    /// event at all, only a link's.
    case linkRetargeted

    var freeingTheName: String? {
      switch self {
      case .movedAside: "mv \"$S\" \"$S.old\""
      case .removed: "rm -rf \"$S\""
      case .linkRetargeted: nil
      }
    }

    var linking: String {
      switch self {
      case .movedAside, .removed: "ln -s \"$NEW\" \"$S\""
      case .linkRetargeted: "ln -sfn \"$NEW\" \"$S.next\" && mv -T \"$S.next\" \"$S\""
      }
    }
  }

  @Test(arguments: Swap.allCases)
  func watchersFollowTheNewDirectory(_ swap: Swap) async throws {
    let directory = try TemporaryDirectory()
    let suite = directory.path("config/app")
    let replacement = directory.path("store/app")
    try FileManager.default.createDirectory(atPath: replacement, withIntermediateDirectories: true)
    if swap == .linkRetargeted {
      // The suite is a link already, to a directory of its own.
      let first = directory.path("store/first")
      try FileManager.default.createDirectory(atPath: first, withIntermediateDirectories: true)
      try FileManager.default.createDirectory(atPath: directory.path("config"), withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: suite, withDestinationPath: first)
    } else {
      try FileManager.default.createDirectory(atPath: suite, withIntermediateDirectories: true)
    }
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "k", "1").waitForExit() == 0)
    #expect(try await DemoProcess("set", "--suite", replacement, "--key", "k", "101").waitForExit() == 0)

    let watcher = try DemoProcess("watch", "--suite", suite, "--key", "k", "--integer")
    #expect(try await watcher.nextLine().hasSuffix(" 1"))

    let variables = "S='\(suite)' NEW='\(replacement)'"
    if let freeing = swap.freeingTheName {
      #expect(try await DemoProcess.shell("\(variables); \(freeing)").waitForExit() == 0)
      #expect(try await watcher.nextLine().hasSuffix(" 0"), "the suite is gone: the default")
    }
    #expect(try await DemoProcess.shell("\(variables); \(swap.linking)").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 101"), "the watcher shows what the new directory holds")

    // Writes through the link, and straight into the new directory, are seen too.
    #expect(try await DemoProcess("set", "--suite", suite, "--key", "k", "102").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 102"))
    #expect(try await DemoProcess("set", "--suite", replacement, "--key", "k", "103").waitForExit() == 0)
    #expect(try await watcher.nextLine().hasSuffix(" 103"))
  }

  /// A process writing a key while its suite, a link, is swapped to another directory goes on
  /// writing there under that directory's lock: it fails no write, and loses none of another
  /// process's increments made there after the swap. (The transaction under way at the swap ends
  /// in the directory whose lock it holds: see the next test.)
  @Test func aWriterWhoseSuiteIsSwappedGoesOnUnderTheNewDirectorysLock() async throws {
    let stores = try await LinkedStores(holding: 0, 0)
    let (suite, first, second) = (stores.suite, stores.first, stores.second)

    let writer = try DemoProcess("increment", "--suite", suite, "--key", "k", "--times", "20000", "--report-each")
    // Swapped once the writer is well under way, with its descriptors kept.
    while try await writer.nextLine(seconds: 60) != "done 200" {}
    #expect(try await DemoProcess.shell(stores.swap).waitForExit() == 0)
    let other = try DemoProcess("increment", "--suite", suite, "--key", "k", "--times", "3000")

    #expect(try await other.allOutput(seconds: 300) == ["ok 3000"])
    let reports = try await writer.allOutput(seconds: 300)
    let done = reports.last { $0.hasPrefix("done ") }.flatMap { Int($0.dropFirst(5)) } ?? 200
    #expect(try await writer.waitForExit() == 0)
    #expect(done == 20000)
    var total = 0
    for store in [first, second] {
      total += try await DemoProcess("get", "--suite", store, "--key", "k").allOutput().first.flatMap { Int($0) } ?? 0
    }
    #expect(total == done + 3000, "the two directories hold every increment made, once")
  }

  /// The transaction under way when the suite's link is retargeted ends in the directory whose
  /// lock it holds: every name it uses after taking the lock is looked up in the directory it
  /// opened with the lock file, not along the path again. `strace` holds the writer for 2 s
  /// just before its exchange, after it took the first directory's lock and read its value; the
  /// link is retargeted meanwhile. Names looked up along the path would then lead the exchange
  /// into the second directory, where it fails or writes the first directory's sum under
  /// neither directory's writers' exclusion.
  @Test(.enabled(if: HeldRenames.areAvailable, "needs strace, to hold the writer before its exchange"))
  func theWriteUnderWayAtASwapEndsWhereItsLockIs() async throws {
    let stores = try await LinkedStores(holding: 100, 0)
    let (suite, first, second) = (stores.suite, stores.first, stores.second)

    let writer = try DemoProcess(
      executable: HeldRenames.strace,
      arguments: HeldRenames.arguments(
        holdingBeforeBy: 2_000_000, [DemoProcess.demoExecutable.path, "increment", "--suite", suite, "--key", "k"]
      )
    )
    // The sum is in the first directory's scratch file: the exchange is next, held.
    let scratch = "\(first)/.k.json.sharedstate-scratch"
    let swapOnceWritten = "until grep -q 101 '\(scratch)' 2>/dev/null; do sleep 0.01; done; \(stores.swap)"
    #expect(try await DemoProcess.shell(swapOnceWritten).waitForExit(seconds: 20) == 0)
    #expect(try await writer.allOutput(seconds: 60) == ["ok 1"])
    #expect(try await writer.waitForExit() == 0)

    #expect(try await DemoProcess("get", "--suite", first, "--key", "k").allOutput() == ["101"])
    #expect(try await DemoProcess("get", "--suite", second, "--key", "k").allOutput() == ["0"], "untouched")
  }
}

/// Two directories, `first` and `second`, each holding the key `k`, and a suite that is a link
/// to `first` (in a directory of its own, `config`).
private struct LinkedStores {
  let directory: TemporaryDirectory
  let suite: String
  let first: String
  let second: String

  /// Makes them, `first` holding `firstValue` and `second` holding `secondValue`.
  init(holding firstValue: Int, _ secondValue: Int) async throws {
    directory = try TemporaryDirectory()
    suite = directory.path("config/app")
    first = directory.path("store/first")
    second = directory.path("store/second")
    for path in [first, second, directory.path("config")] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    try FileManager.default.createSymbolicLink(atPath: suite, withDestinationPath: first)
    for (store, value) in [(first, firstValue), (second, secondValue)] {
      #expect(try await DemoProcess("set", "--suite", store, "--key", "k", "\(value)").waitForExit() == 0)
    }
  }

  /// The shell command that retargets the suite's link to `second`, in one rename.
  var swap: String { "ln -sfn '\(second)' '\(suite).next' && mv -T '\(suite).next' '\(suite)'" }
}
