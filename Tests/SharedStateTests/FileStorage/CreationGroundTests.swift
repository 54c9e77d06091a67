import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// How the walk of a directory's path judges what it meets, seen from root (the tests run as
/// root in CI and are skipped elsewhere): which links another user controls, and which
/// directories someone other than root can write.
@Suite("Creation ground", .serialized, .enabled(if: getuid() == 0, "needs root to give links to another user"))
struct CreationGroundTests {
  let root: TemporaryDirectory

  init() throws {
    root = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.url.path)
  }

  /// Makes directory `name` with `mode`, owned by `owner`.
  func directory(_ name: String, mode: Int, owner: uid_t = 0, group: gid_t? = nil) throws -> String {
    let path = root.path(name)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    #expect(chown(path, owner, group ?? owner) == 0)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    return path
  }

  /// Makes a symbolic link at `path` to `target`, owned by `owner`.
  func link(_ path: String, to target: String, owner: uid_t) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
    #expect(lchown(path, owner, owner) == 0)
  }

  func ground(_ path: String) throws -> CreationGround {
    try CreationGround(walking: FilePath(path))
  }

  @Test func directoriesOnlyRootCanWriteAreNotShared() throws {
    let own = try directory("own", mode: 0o755)
    #expect(try ground(own).sharedDirectory == nil)
    #expect(try ground(own).plantedLink == nil)
  }

  @Test func directoriesOthersCanWriteAreShared() throws {
    // The group's directory belongs to root and to another group.
    for (name, mode, owner, group) in [
      ("sticky", 0o1777, uid_t(0), gid_t(0)), ("open", 0o777, 0, 0), ("group", 0o775, 0, 65534), ("nobodys", 0o755, 65534, 65534),
    ] {
      let path = try directory(name, mode: mode, owner: owner, group: group)
      #expect(try ground(path).sharedDirectory == FilePath(path), "\(name)")
    }
  }

  @Test func aPathAnotherUserCouldChangeIsNotSettled() throws {
    let sticky = try directory("sticky", mode: 0o1777)
    let open = try directory("open", mode: 0o777)
    try FileManager.default.createDirectory(atPath: sticky + "/roots", withIntermediateDirectories: false)
    try FileManager.default.createDirectory(atPath: open + "/roots", withIntermediateDirectories: false)
    // root's directory in a sticky directory cannot be moved by others; in an open one it can.
    #expect(try ground(sticky + "/roots").isSettled)
    #expect(try !ground(open + "/roots").isSettled)
    #expect(try ground(open + "/roots").sharedDirectory == nil)
    // Another user's directory may be made writable by them.
    let nobodys = try directory("nobodys", mode: 0o555, owner: 65534)
    #expect(try !ground(nobodys).isSettled)
  }

  @Test func aMissingDirectoryIsCreatedAsOnesOwn() throws {
    let sticky = try directory("sticky", mode: 0o1777)
    let missing = try ground(sticky + "/not-yet/deeper")
    #expect(missing.sharedDirectory == nil && missing.plantedLink == nil)
  }

  @Test func aLinkOfAnotherUserInADirectoryOthersCanWriteIsPlanted() throws {
    let sticky = try directory("sticky", mode: 0o1777)
    let hidden = try directory("hidden", mode: 0o700)
    try link(sticky + "/planted", to: hidden, owner: 65534)
    #expect(try ground(sticky + "/planted").plantedLink == FilePath(sticky + "/planted"))
    #expect(try ground(sticky + "/planted/below").plantedLink == FilePath(sticky + "/planted"))
    // In another user's own directory too, which the kernel's rule lets through.
    let nobodys = try directory("nobodys", mode: 0o755, owner: 65534)
    try link(nobodys + "/planted", to: hidden, owner: 65534)
    #expect(try ground(nobodys + "/planted").plantedLink == FilePath(nobodys + "/planted"))
  }

  @Test func linksOfRootOrInADirectoryOnlyRootCanWriteAreFollowed() throws {
    let sticky = try directory("sticky", mode: 0o1777)
    let own = try directory("own", mode: 0o755)
    let hidden = try directory("hidden", mode: 0o700)
    try link(sticky + "/roots", to: hidden, owner: 0)
    try link(own + "/nobodys", to: "../hidden", owner: 65534)
    for path in [sticky + "/roots", own + "/nobodys"] {
      let found = try ground(path)
      #expect(found.plantedLink == nil, "\(path)")
      // The link's target is judged: root's own 0700 directory.
      #expect(found.sharedDirectory == nil, "\(path)")
    }
    // A link to a directory others can write leads there.
    try link(own + "/to-sticky", to: sticky, owner: 0)
    #expect(try ground(own + "/to-sticky").sharedDirectory == FilePath(sticky))
  }
}
