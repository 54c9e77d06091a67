import Dependencies
import Foundation
import SharedState
import Testing

/// Code written for `UserDefaults` keeps a `Codable` value as its JSON in a `Data` value
/// (`set(try JSONEncoder().encode(item), forKey:)`, `JSONDecoder().decode(_:from: data(forKey:))`),
/// as swift-sharing's app storage does; a suite reads both ways.
@Suite("App storage: Codable values and Data holding their JSON")
struct CodableAsDataTests {
  @Dependency(\.defaultAppStorage) var suite

  struct Item: Codable, Equatable, Sendable {
    var id: Int
  }

  struct Event: Codable, Equatable, Sendable {
    var name: String
    var date: Date
  }

  @Test func dataForKeyIsTheJSONOfACodableValue() throws {
    @Shared(.appStorage("item")) var item = Item(id: 42)
    let data = try #require(suite.data(forKey: "item"))
    #expect(try JSONDecoder().decode(Item.self, from: data) == Item(id: 42))

    try suite.write([Item(id: 1), Item(id: 2)], forKey: "items")
    let list = try #require(suite.data(forKey: "items"))
    #expect(try JSONDecoder().decode([Item].self, from: list) == [Item(id: 1), Item(id: 2)])

    // A number or a Boolean is no data, as in `UserDefaults`; stored bytes are those bytes.
    try suite.write(7, forKey: "count")
    try suite.write(true, forKey: "flag")
    try suite.write(Data([4, 2]), forKey: "bytes")
    #expect(suite.data(forKey: "count") == nil)
    #expect(suite.data(forKey: "flag") == nil)
    #expect(suite.data(forKey: "bytes") == Data([4, 2]))
    #expect(suite.data(forKey: "missing") == nil)
  }

  @Test func aCodableValueReadsFromDataHoldingItsJSON() throws {
    @Shared(.appStorage("item")) var item = Item(id: 42)
    suite.set(try JSONEncoder().encode(Item(id: 1729)), forKey: "item")
    #expect(item == Item(id: 1729))
    #expect($item.loadError == nil)
    #expect(try suite.value(forKey: "item", as: Item.self) == Item(id: 1729))

    // The program's next write stores the value's own JSON.
    $item.withLock { $0.id += 1 }
    #expect(suite.object(forKey: "item") as? [String: Int] == ["id": 1730])
  }

  @Test func dataStoredBeforeTheKeyIsOpenedIsReadAndKept() throws {
    let blob = try JSONEncoder().encode(Item(id: 7))
    suite.set(blob, forKey: "item")
    @Shared(.appStorage("item")) var item = Item(id: 42)
    #expect(item == Item(id: 7))
    #expect(suite.data(forKey: "item") == blob, "reading writes nothing")
  }

  @Test func datesInsideDataAreReadAsJSONEncoderWritesThem() throws {
    let event = Event(name: "launch", date: Date(timeIntervalSinceReferenceDate: 86_400))
    @Shared(.appStorage("event")) var stored = Event(name: "none", date: .distantPast)
    // `JSONEncoder()`'s default date is seconds since 2001, unlike the files' own JSON.
    suite.set(try JSONEncoder().encode(event), forKey: "event")
    #expect(stored == event)
  }

  @Test func aStringThatLooksLikeDataStaysAString() throws {
    let base64 = try JSONEncoder().encode(Item(id: 1)).base64EncodedString()
    @Shared(.appStorage("text")) var text = ""
    suite.set(base64, forKey: "text")
    #expect(text == base64)
  }

  @Test func dataThatHoldsNoValueIsStillAnError() throws {
    @Shared(.appStorage("item")) var item = Item(id: 42)
    suite.set(Data("not json".utf8), forKey: "item")
    #expect(item == Item(id: 42))
    let error = try #require($item.loadError as? DecodingError)
    // The JSON string that holds the data is no object.
    guard case let .typeMismatch(_, context) = error else {
      Issue.record("expected typeMismatch, got \(error)")
      return
    }
    #expect(context.debugDescription.hasPrefix(suite.directory.path), "it names the file")
  }
}
