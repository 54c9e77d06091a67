import Foundation

/// One entry of the to-do list, stored in `todos.json` in the suite directory: the format of the
/// terminal demo's `Todo` (Demo/UI), so that both demos share a suite.
struct Todo: Codable, Equatable, Identifiable, Sendable {
  let id: UUID
  var title: String
  var isDone = false
}
