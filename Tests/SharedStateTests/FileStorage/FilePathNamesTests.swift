import Foundation
import SystemPackage
import Testing

@testable import SharedState

/// The library takes absolute, lexically normal paths apart on their text; swift-system's
/// component views, which it replaces there, are the oracle.
@Suite("Paths taken apart on their text")
struct FilePathNamesTests {
  static let normalPaths: [FilePath] = [
    "/", "/a", "/a/b", "/tmp/SharedStateTests-0FD39C15/later/deeper", "/a/.hidden", "/a/b.json",
    "/a/..b", "/a/b c/é", "/a/b/...", "/a/\u{301}b", "/a/\u{200D}", "/\u{301}", "/a\u{301}/b",
  ]

  @Test(arguments: normalPaths)
  func directoryAndNameAnswerAsComponentsDo(path: FilePath) {
    let parts = path.directoryAndName
    if let name = path.lastComponent {
      #expect(parts?.directory == path.removingLastComponent())
      #expect(parts?.name == name.string)
    } else {
      #expect(parts == nil)
    }
  }

  @Test func aRelativePathIsNotTakenApart() {
    #expect(FilePath("a/b").directoryAndName == nil)
    #expect(FilePath("").directoryAndName == nil)
  }

  @Test(arguments: normalPaths)
  func insideAnswersAsStartsWithDoes(path: FilePath) {
    for ancestor in Self.normalPaths + ["/a/b/c", "/a/bc", "/a/b/", "/tm", "/tmp/SharedStateTests-0FD39C15/late"] {
      #expect(path.isSameOrInside(ancestor) == path.starts(with: ancestor), "\(path) in \(ancestor)")
    }
  }

  @Test(arguments: [
    "/", "/a", "/a/b", "/a/./b", "/a/../b", "/a//b", "/a/b/", "/a/b/.", "/a/b/..", "/..", "/.", "a/b", "",
    "/a/.b", "/a/..b", "/a/b...",
  ])
  func normalIsTold(text: String) {
    let path = FilePath(text)
    let isNormal = !path.isRelative && path.lexicallyNormalized() == path
    #expect(path.isAbsoluteAndLexicallyNormal == isNormal, "\(text) → \(path)")
  }

  @Test func normalizingAURLGivesWhatSwiftSystemGives() {
    for text in ["/a/./b", "/a/../b", "/a//b/", "/a/b", "/tmp/x.json"] {
      let url = URL(fileURLWithPath: text)
      #expect(FilePath(normalizing: url) == FilePath(url.path).lexicallyNormalized(), "\(text)")
    }
  }
}
