/// The demo's one multiple-choice setting, stored as its raw value under `settings.theme`.
enum Theme: String, CaseIterable, Codable, Sendable {
  case system, light, dark

  /// The choice after this one, wrapping around, for the key that cycles through them.
  var next: Theme {
    let all = Theme.allCases
    return all[(all.firstIndex(of: self)! + 1) % all.count]
  }
}
