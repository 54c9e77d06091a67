import Foundation

/// One entry of the demo's to-do list, stored in `todos.json` in the suite directory.
package struct Todo: Codable, Equatable, Identifiable, Sendable {
  /// Stays the same when the title or the state changes.
  package let id: UUID
  /// What is to be done.
  package var title: String
  /// Whether it is done.
  package var isDone = false

  /// A to-do with a new or given identity.
  package init(id: UUID, title: String, isDone: Bool = false) {
    self.id = id
    self.title = title
    self.isDone = isDone
  }
}
