import Foundation
@testable import SharedState
import SystemPackage
import Testing

/// Waits until the directory of `file` is watched: on a busy machine a registration may return
/// before (its handle then hears `resynchronize`), and a write made meanwhile raises no event.
func waitUntilWatched(_ file: String) async throws {
  let directory = FilePath(file).removingLastComponent()
  let deadline = Date().addingTimeInterval(20)
  while DirectoryWatcher.shared.state(of: directory) != .watched {
    try #require(Date() < deadline, "\(directory) was not watched in time")
    try await Task.sleep(for: .milliseconds(5))
  }
}
