/// The demo's one multiple-choice setting, stored as its raw value under `settings.theme`.
package enum Theme: String, CaseIterable, Codable, Sendable {
  /// The desktop's choice.
  case system
  /// Light, whatever the desktop chose.
  case light
  /// Dark, whatever the desktop chose.
  case dark

  /// The choice after this one, wrapping around, for the key that cycles through them.
  package var next: Theme {
    let all = Theme.allCases
    return all[(all.firstIndex(of: self)! + 1) % all.count]
  }
}
