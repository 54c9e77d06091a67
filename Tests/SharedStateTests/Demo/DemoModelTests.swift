import Dependencies
import Foundation
import SharedDemoSuite
import SharedState
import Testing

@testable import SharedDemo

/// What each key press of `shared-demo ui` does to the shared state, without a terminal: two
/// models on one in-memory suite stand for two windows.
@Suite struct DemoModelTests {
  let fileSystem = InMemoryFileSystem()

  /// A window on the test's suite, as process `pid`, whose clock says `now`.
  func window(pid: Int32, now: UInt64 = 1_000) -> DemoModel {
    withDependencies {
      $0.defaultFileStorage = .inMemory(fileSystem)
    } operation: {
      DemoModel(suite: .inMemory(fileSystem), pid: pid, now: { now })
    }
  }

  @discardableResult
  func press(_ model: DemoModel, _ keys: KeyPress...) -> DemoModel.Outcome {
    keys.reduce(.proceed) { _, key in model.handle(key) }
  }

  func type(_ model: DemoModel, _ text: String) {
    for character in text { press(model, .character(character)) }
  }

  @Test func plusAndMinusChangeTheCounterThatEveryWindowShows() {
    let first = window(pid: 1)
    let second = window(pid: 2)
    press(first, .character("+"), .character("+"), .character("-"), .character("="))
    #expect(first.snapshot().counter == 2)
    #expect(second.snapshot().counter == 2)
    press(second, .character("-"), .character("-"), .character("-"))
    #expect(first.snapshot().counter == -1)
    #expect(first.counter.saveError == nil)
  }

  @Test func numberKeysFlipTheSettingsAndTCyclesTheTheme() {
    let model = window(pid: 1)
    #expect(model.snapshot().toggles.map(\.isOn) == [false, false, false])
    press(model, .character("1"), .character("3"))
    #expect(model.snapshot().toggles.map(\.isOn) == [true, false, true])
    press(model, .character("1"))
    #expect(model.snapshot().toggles.map(\.isOn) == [false, false, true])
    #expect(window(pid: 2).snapshot().toggles.map(\.isOn) == [false, false, true])

    #expect(model.snapshot().theme == .system)
    press(model, .character("t"))
    #expect(model.snapshot().theme == .light)
    press(model, .character("t"), .character("t"))
    #expect(model.snapshot().theme == .system)
  }

  @Test func addEditMarkDoneAndDeleteToDos() throws {
    let model = window(pid: 1)
    press(model, .character("a"))
    #expect(model.mode == .adding(text: ""))
    type(model, "Milk")
    #expect(model.mode == .adding(text: "Milk"))
    press(model, .enter)
    #expect(model.mode == .browsing)
    press(model, .character("a"))
    type(model, "Bread")
    press(model, .enter)
    var snapshot = model.snapshot()
    #expect(snapshot.todos.map(\.title) == ["Milk", "Bread"])
    #expect(snapshot.selection == 1, "a new to-do is selected")

    press(model, .up)
    #expect(model.snapshot().selection == 0)
    let milk = try #require(model.snapshot().todos.first)
    press(model, .character("e"))
    #expect(model.mode == .editing(id: milk.id, text: "Milk"))
    press(model, .backspace, .backspace, .backspace, .backspace)
    type(model, "Oat milk")
    press(model, .enter)
    snapshot = model.snapshot()
    #expect(snapshot.todos.map(\.title) == ["Oat milk", "Bread"])
    #expect(snapshot.todos[0].id == milk.id, "editing keeps the to-do's identity")

    press(model, .character(" "))
    #expect(model.snapshot().todos.map(\.isDone) == [true, false])
    press(model, .character("x"))
    #expect(model.snapshot().todos.map(\.isDone) == [false, false])

    press(model, .character("d"))
    snapshot = model.snapshot()
    #expect(snapshot.todos.map(\.title) == ["Bread"])
    #expect(snapshot.selection == 0, "the next to-do is selected after a delete")
    #expect(window(pid: 2).snapshot().todos.map(\.title) == ["Bread"])
    #expect(model.todos.saveError == nil)
  }

  @Test func escapeCancelsBackspaceErasesAndEmptyTitlesAddNothing() {
    let model = window(pid: 1)
    press(model, .character("a"))
    type(model, "Soap")
    press(model, .escape)
    #expect(model.mode == .browsing)
    press(model, .character("a"))
    type(model, "   ")
    press(model, .enter)
    #expect(model.snapshot().todos.isEmpty)

    press(model, .character("a"))
    type(model, "ab")
    press(model, .backspace)
    type(model, "c")
    press(model, .enter)
    #expect(model.snapshot().todos.map(\.title) == ["ac"])

    // An edit cancelled with Escape, or emptied, leaves the title alone.
    press(model, .character("e"), .backspace, .character("z"), .escape)
    press(model, .character("e"), .backspace, .backspace, .enter)
    #expect(model.snapshot().todos.map(\.title) == ["ac"])
  }

  @Test func commandKeysWithoutToDosDoNothing() {
    let model = window(pid: 1)
    #expect(press(model, .character("e"), .character(" "), .character("d"), .up, .down) == .proceed)
    #expect(model.mode == .browsing)
    #expect(model.snapshot().todos.isEmpty)
    #expect(model.snapshot().selection == nil)
  }

  @Test func qQuitsExceptWhileTypingAndCtrlCAlwaysQuits() {
    let model = window(pid: 1)
    #expect(press(model, .character("a")) == .proceed)
    #expect(press(model, .character("q")) == .proceed)
    #expect(model.mode == .adding(text: "q"))
    #expect(press(model, .interrupt) == .quit)
    press(model, .escape)
    #expect(press(model, .character("q")) == .quit)
    #expect(press(model, .interrupt) == .quit)
  }

  @Test func selectionFollowsTheToDoAndSurvivesItsDeletionElsewhere() {
    let first = window(pid: 1)
    let second = window(pid: 2)
    for title in ["A", "B", "C"] {
      press(first, .character("a"))
      type(first, title)
      press(first, .enter)
    }
    press(second, .down)
    #expect(second.snapshot().selection == 1)
    // Another window puts a new to-do first: the selection stays on "B".
    second.todos.withLock { $0.insert(Todo(id: UUID(), title: "Z"), at: 0) }
    #expect(second.snapshot().selection == 2)
    // Another window deletes "B": the selection stays where it was.
    first.todos.withLock { _ = $0.remove(at: 2) }
    let snapshot = second.snapshot()
    #expect(snapshot.todos.map(\.title) == ["Z", "A", "C"])
    #expect(snapshot.selection == 2)
  }

  @Test func changesFromOtherProcessesAreCountedWithTheirLatency() {
    let first = window(pid: 1, now: 5_000_000)
    let second = window(pid: 2, now: 9_000_000)
    press(first, .character("+"), .character("1"))
    // Two changes arrive as one value (events coalesce): both count.
    second.receive(second.lastChange.wrappedValue, at: 6_500_000)
    var status = second.snapshot()
    #expect(status.changesFromOthers == 2)
    #expect(status.lastLatencyNanoseconds == 1_500_000)
    #expect(status.pid == 2)

    // This window's own changes are not from others, and bring no latency.
    press(second, .character("+"))
    second.receive(second.lastChange.wrappedValue, at: 9_100_000)
    status = second.snapshot()
    #expect(status.changesFromOthers == 2)
    #expect(status.lastLatencyNanoseconds == 1_500_000)

    // The first window sees one change from the second; an old value changes nothing.
    let latest = first.lastChange.wrappedValue
    first.receive(latest, at: 9_400_000)
    first.receive(LastChange(pid: 2, sequence: 1, unixNanoseconds: 0), at: 9_500_000)
    status = first.snapshot()
    #expect(status.changesFromOthers == 1)
    #expect(status.lastLatencyNanoseconds == 400_000)
  }

  @Test func changesMadeBeforeAWindowOpenedAreNotCounted() {
    let first = window(pid: 1)
    press(first, .character("+"), .character("+"))
    let late = window(pid: 2)
    late.receive(late.lastChange.wrappedValue, at: 2_000)
    #expect(late.snapshot().changesFromOthers == 0)
    #expect(late.snapshot().lastLatencyNanoseconds == nil)
  }
}
