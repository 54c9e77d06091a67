import IdentifiedCollections
import SharedState
import Testing

private struct Todo: Identifiable, Equatable, Sendable {
  let id: Int
  var title: String
  var isDone = false
}

@Suite("Identified collections")
struct IdentifiedCollectionTests {
  @Test func elementById() throws {
    let todos = Shared(value: IdentifiedArrayOf<Todo>(uniqueElements: [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]))
    let eggs = try #require(todos[id: 2])
    eggs.withLock { $0.isDone = true }
    #expect(todos.wrappedValue[id: 2]?.isDone == true)
    #expect(todos[id: 3] == nil)
  }

  @Test func elementFollowsItsIdAcrossReordering() throws {
    let todos = Shared(value: IdentifiedArrayOf<Todo>(uniqueElements: [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]))
    let milk = try #require(todos[id: 1])
    todos.withLock { $0.reverse() }
    milk.withLock { $0.title = "Oat milk" }
    #expect(todos.wrappedValue.map(\.title) == ["Eggs", "Oat milk"])
  }

  @Test func removedElementKeepsItsLastValue() throws {
    let todos = Shared(value: IdentifiedArrayOf<Todo>(uniqueElements: [Todo(id: 1, title: "Milk")]))
    let milk = try #require(todos[id: 1])
    todos.withLock { _ = $0.remove(id: 1) }
    #expect(milk.wrappedValue.title == "Milk")
    milk.withLock { $0.title = "ignored" }
    #expect(todos.wrappedValue.isEmpty, "writing to a removed element does not bring it back")
  }

  @Test func arrayOfSharedElements() {
    @Shared(.inMemory("todos")) var todos: IdentifiedArrayOf<Todo> = [
      Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs"),
    ]
    let elements = Array($todos)
    #expect(elements.map(\.wrappedValue.title) == ["Milk", "Eggs"])
    for todo in elements {
      todo.withLock { $0.isDone = true }
    }
    #expect(todos.allSatisfy { $0.isDone })
  }

  @Test func readerElements() throws {
    let todos = Shared(value: IdentifiedArrayOf<Todo>(uniqueElements: [Todo(id: 1, title: "Milk")]))
    let reader = SharedReader(todos)
    let milk = try #require(reader[id: 1])
    #expect(Array(reader).map(\.wrappedValue) == [Todo(id: 1, title: "Milk")])
    todos.withLock { $0[id: 1]?.title = "Oat milk" }
    #expect(milk.wrappedValue.title == "Oat milk")
  }
}
