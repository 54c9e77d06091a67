import SharedState

/// A first example: four tasks increment one shared counter while a fifth watches it change.
@main
struct SharedDemo {
  static func main() async {
    @Shared(.inMemory("count")) var count = 0

    let watcher = Task { [$count] in
      var valuesSeen = 0
      for await value in $count.values {
        valuesSeen += 1
        if value == 4_000 { break }
      }
      return valuesSeen
    }

    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask { [$count] in
          for _ in 0..<1_000 {
            $count.withLock { $0 += 1 }
          }
        }
      }
    }

    let valuesSeen = await watcher.value
    print("Counter: \(count)")
    print("A watcher saw \(valuesSeen) values, from the first to the last.")
  }
}
