/// The one multiple-choice setting, stored as its raw value under `settings.theme`: the terminal
/// demo's `Theme` (Demo/UI).
enum Theme: String, CaseIterable, Codable, Sendable {
  case system, light, dark
}
