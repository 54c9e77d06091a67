/// One on/off preference: the app-storage key that holds it and its label (the terminal demo's
/// `SettingToggle`, Demo/UI).
struct SettingToggle: Sendable {
  let key: String
  let title: String

  /// The toggles every window shows, in order.
  static let all = [
    SettingToggle(key: "settings.notifications", title: "Notifications"),
    SettingToggle(key: "settings.sound", title: "Sound"),
    SettingToggle(key: "settings.auto-save", title: "Auto-save"),
  ]
}
