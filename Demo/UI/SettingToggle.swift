/// One on/off preference of the demo: the app-storage key that holds it, its label and the key
/// press that flips it.
struct SettingToggle: Sendable {
  let key: String
  let title: String
  let shortcut: Character

  /// The toggles every window shows, in order.
  static let all = [
    SettingToggle(key: "settings.notifications", title: "Notifications", shortcut: "1"),
    SettingToggle(key: "settings.sound", title: "Sound", shortcut: "2"),
    SettingToggle(key: "settings.auto-save", title: "Auto-save", shortcut: "3"),
  ]
}
