import Foundation
import SharedDemoSuite
import Testing

@testable import SharedDemo

/// What a window of `shared-demo ui` shows for a given state and size.
@Suite struct DemoRendererTests {
  func snapshot(
    todos: [String] = ["Milk", "Bread"],
    selection: Int? = 0,
    mode: DemoMode = .browsing
  ) -> DemoSnapshot {
    DemoSnapshot(
      suite: "/tmp/suite",
      counter: 7,
      toggles: [
        .init(title: "Notifications", shortcut: "1", isOn: true),
        .init(title: "Sound", shortcut: "2", isOn: false),
      ],
      theme: .dark,
      todos: todos.enumerated().map { Todo(id: UUID(), title: $1, isDone: $0 == 1) },
      selection: todos.isEmpty ? nil : selection,
      mode: mode,
      pid: 42,
      changesFromOthers: 3,
      lastLatencyNanoseconds: 1_250_000,
      problem: nil
    )
  }

  @Test func aRoomyWindowShowsEverything() {
    let lines = DemoRenderer.lines(for: snapshot(), width: 80, height: 40)
    #expect(lines == [
      "SharedState demo: /tmp/suite",
      "Counter: 7",
      "",
      "Settings",
      " 1 [x] Notifications",
      " 2 [ ] Sound",
      " t Theme: dark",
      "",
      "To-dos (1/2 done)",
      "> [ ] Milk",
      "  [x] Bread",
      "",
      "pid 42 | from others: 3 | latency: 1.3 ms",
      "+/- counter  1/2/3 toggle  t theme  a add  e edit  space done  d delete",
      "up/down select  q quit",
    ])
  }

  @Test func typingShowsThePromptAndItsKeys() {
    let lines = DemoRenderer.lines(for: snapshot(mode: .adding(text: "Eggs")), width: 80, height: 40)
    #expect(lines.contains("New to-do: Eggs_"))
    #expect(lines.last == "Enter save  Esc cancel  Backspace erase")
    #expect(!lines.contains("> [ ] Milk"), "no selection marker while typing")
    let editing = DemoRenderer.lines(
      for: snapshot(mode: .editing(id: UUID(), text: "Mil")), width: 80, height: 40
    )
    #expect(editing.contains("Edit to-do: Mil_"))
  }

  @Test func anEmptyListSaysHowToAdd() {
    let lines = DemoRenderer.lines(for: snapshot(todos: []), width: 80, height: 40)
    #expect(lines.contains("To-dos (0/0 done)"))
    #expect(lines.contains("  (none yet: press a to add one)"))
  }

  @Test func noLineIsWiderThanTheWindow() {
    let long = String(repeating: "long title ", count: 20)
    let lines = DemoRenderer.lines(for: snapshot(todos: [long]), width: 24, height: 40)
    #expect(lines.allSatisfy { $0.count <= 24 })
    #expect(lines.contains("> [ ] long title long t…"))
    // Help phrases wrap whole.
    #expect(lines.contains("+/- counter"))
    #expect(lines.contains("1/2/3 toggle  t theme"))
  }

  @Test func aShortWindowScrollsToTheSelection() {
    let titles = (1...30).map { "Task \($0)" }
    let lines = DemoRenderer.lines(for: snapshot(todos: titles, selection: 25), width: 80, height: 20)
    #expect(lines.count == 20)
    #expect(lines.contains("> [ ] Task 26"))
    #expect(lines.contains("Counter: 7"))
    #expect(lines.contains { $0.hasPrefix("pid 42") })
    #expect(!lines.contains("  [ ] Task 1"))
  }

  @Test func aShortWindowDropsBlankLinesBeforeToDos() {
    let lines = DemoRenderer.lines(for: snapshot(), width: 80, height: 14)
    #expect(lines.count == 12)
    #expect(!lines.contains(""))
    #expect(lines.contains("> [ ] Milk"))
    #expect(lines.contains("  [x] Bread"), "the room blank lines took goes to the list")
  }

  @Test func controlCharactersInTitlesAreNotSentToTheTerminal() {
    let lines = DemoRenderer.lines(for: snapshot(todos: ["a\u{1B}[2Jb\tc"]), width: 80, height: 40)
    #expect(lines.contains("> [ ] a?[2Jb?c"))
  }

  @Test func latencyIsShownInMilliseconds() {
    #expect(DemoRenderer.milliseconds(0) == "0.0 ms")
    #expect(DemoRenderer.milliseconds(440_000) == "0.4 ms")
    #expect(DemoRenderer.milliseconds(12_960_000) == "13.0 ms")
    var noLatency = snapshot()
    noLatency.lastLatencyNanoseconds = nil
    let lines = DemoRenderer.lines(for: noLatency, width: 80, height: 40)
    #expect(lines.contains("pid 42 | from others: 3 | latency: -"))
  }

  @Test func aProblemIsShown() {
    var broken = snapshot()
    broken.problem = "todos.json: not valid JSON"
    let lines = DemoRenderer.lines(for: broken, width: 80, height: 40)
    #expect(lines.contains("! todos.json: not valid JSON"))
  }
}
