/// One on/off preference of the demo: the app-storage key that holds it, its label, and the key
/// press that flips it in the terminal demo.
package struct SettingToggle: Sendable {
  /// The key of its `Bool`, in app storage or PostgreSQL.
  package let key: String
  /// Its label.
  package let title: String
  /// The key press that flips it in `shared-demo ui`.
  package let shortcut: Character

  /// The toggles every window shows, in order.
  package static let all = [
    SettingToggle(key: "settings.notifications", title: "Notifications", shortcut: "1"),
    SettingToggle(key: "settings.sound", title: "Sound", shortcut: "2"),
    SettingToggle(key: "settings.auto-save", title: "Auto-save", shortcut: "3"),
  ]
}
