import SystemPackage

/// What a read may leave behind: the empty placeholder of a file-storage key, the stored default
/// of an app-storage key, and the lock file and directories that writing them makes.
///
/// A read creates nothing where that could harm someone who could write before it, or reach
/// outside what its path names (see ``CreationGround``):
///
/// - in a directory someone other than this user and root can write (a sticky `/tmp`-like
///   directory, a group's directory): a file a read left there would be this user's, and could
///   stop the others from ever writing that key (in a sticky directory nobody may replace or
///   remove another user's file, and another user's lock file may not be opened for writing);
/// - through a symbolic link another user planted on the way: the files would land wherever
///   that user pointed it, in a directory of this user's own, say;
/// - on a path another user could change (a name in a directory they can write, not sticky):
///   they could swap a name for such a link between the look and the creation.
///
/// The read itself still reads (what is there is no different from what that user could have
/// put in a directory of their own), and the key still works: its value is the default until
/// someone writes one, and a write on purpose creates the files as usual.
enum ReadCreation {
  /// Why a read created nothing.
  struct Refused: Error, CustomStringConvertible {
    let ground: CreationGround

    var description: String {
      if let link = ground.plantedLink {
        return "a read creates nothing through \(link.string), a symbolic link another user controls"
      }
      if let directory = ground.sharedDirectory {
        return "a read creates nothing in \(directory.string), which other users can write"
      }
      return "a read creates nothing on a path other users could change"
    }
  }

  /// Throws ``Refused`` when a read may create nothing for the stored file at `paths`.
  static func check(_ paths: CompanionPaths) throws {
    let ground = try CreationGround.of(paths.directory)
    if ground.plantedLink != nil || ground.sharedDirectory != nil || !ground.isSettled {
      throw Refused(ground: ground)
    }
  }
}
