import Foundation

/// One entry of the demo's to-do list, stored in `todos.json` in the suite directory.
struct Todo: Codable, Equatable, Identifiable, Sendable {
  let id: UUID
  var title: String
  var isDone = false
}
