import SharedDemoSuite

/// Everything a window shows at one moment, as plain values: what ``DemoRenderer`` draws.
struct DemoSnapshot: Equatable, Sendable {
  /// One on/off setting as shown.
  struct ToggleRow: Equatable, Sendable {
    var title: String
    var shortcut: Character
    var isOn: Bool
  }

  var suite: String
  var counter: Int
  var toggles: [ToggleRow]
  var theme: Theme
  var todos: [Todo]
  /// The position in `todos` of the selected to-do.
  var selection: Int?
  var mode: DemoMode
  var pid: Int32
  var changesFromOthers: Int
  /// How long the last change from another process took to arrive, in nanoseconds.
  var lastLatencyNanoseconds: UInt64?
  /// A load or save failure to show, if any.
  var problem: String?
}
