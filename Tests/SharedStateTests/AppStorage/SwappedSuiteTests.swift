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
}
