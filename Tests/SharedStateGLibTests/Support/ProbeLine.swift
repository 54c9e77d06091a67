/// The `key=value` fields of a line the probe prints, e.g. `change 5 owner=true read=5`.
struct ProbeLine {
  let words: [String]
  let fields: [String: String]

  init(_ line: String) {
    words = line.split(separator: " ").map(String.init)
    var fields: [String: String] = [:]
    for word in words {
      let parts = word.split(separator: "=", maxSplits: 1)
      if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    self.fields = fields
  }

  subscript(_ name: String) -> String? { fields[name] }

  /// The field `name` as an integer, or -1 when missing.
  func integer(_ name: String) -> Int { fields[name].flatMap { Int($0) } ?? -1 }
}
