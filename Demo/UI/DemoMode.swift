import Foundation

/// Whether a window takes commands or is editing the text of a to-do.
enum DemoMode: Equatable, Sendable {
  /// Keys are commands.
  case browsing
  /// Typing the title of a new to-do.
  case adding(text: String)
  /// Typing a new title for the to-do with this id.
  case editing(id: UUID, text: String)
}
