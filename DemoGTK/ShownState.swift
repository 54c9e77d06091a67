import SharedDemoSuite

/// Everything a window shows of the shared state, read in one go: what a render shows, and what
/// it compares with the state once its observation is in place.
struct ShownState: Equatable {
  var counter: Int
  var toggles: [Bool]
  var theme: Theme
  var todos: [Todo]
  var lastChange: LastChange?
  var problem: String?

  /// Reads the state now.
  init(_ state: DemoState) {
    counter = state.counter.wrappedValue
    toggles = state.toggles.map(\.wrappedValue)
    theme = state.theme.wrappedValue
    todos = Array(state.todos.wrappedValue)
    lastChange = state.lastChange.wrappedValue
    problem = state.problem
  }
}
