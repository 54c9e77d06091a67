import Foundation
import SystemPackage

/// The write sequence: on the page when it is mapped, otherwise in the lock file's first eight
/// bytes. Odd while a write is under way (a seqlock), it grows by 2 with each write.
extension PathLock {
  /// A write that has turned the sequence odd, and the page it announces itself on.
  struct AnnouncedWrite {
    /// The sequence the write ends at.
    let sequence: UInt64
    fileprivate let page: CoordinationPage?
  }

  /// The sequence now. Call holding the lock.
  func lockedSequence() -> UInt64 {
    if let page = page(mapping: false) { return page.sequence }
    guard let descriptor = lockDescriptor else { return 0 }
    return (try? Self.storedSequence(in: descriptor)) ?? 0
  }

  /// The sequence now, without the lock: from the page when this process has it mapped,
  /// otherwise read from the lock file (0 when there is none: no cooperating writer yet).
  func unlockedSequence() throws -> UInt64 {
    if let page = page(mapping: false) { return page.sequence }
    do {
      let opened = try RegularFile.open(paths.lock, writable: false)
      defer { opened.descriptor.closeIgnoringFailure() }
      return try Self.storedSequence(in: opened.descriptor)
    } catch let error as Errno where error == .noSuchFileOrDirectory {
      return 0
    }
  }

  /// The sequence that the first 8 bytes of a lock file hold (0 when it is shorter).
  private static func storedSequence(in descriptor: FileDescriptor) throws -> UInt64 {
    var value: UInt64 = 0
    let count = try withUnsafeMutableBytes(of: &value) { buffer throws -> Int in
      try descriptor.read(at: 0, into: buffer)
    }
    return count == 8 ? UInt64(littleEndian: value) : 0
  }

  private func storeSequence(_ sequence: UInt64) throws {
    guard let descriptor = lockDescriptor else { return }
    var value = sequence.littleEndian
    try withUnsafeBytes(of: &value) { bytes throws in try descriptor.write(at: 0, bytes) }
  }

  /// Turns the sequence odd: readers without the lock distrust the page and the target until
  /// the write is published or abandoned. Call holding the exclusive lock.
  func announceWrite() throws -> AnnouncedWrite {
    let page = page(mapping: false)
    if let page { return AnnouncedWrite(sequence: page.beginWrite(), page: page) }
    let current = lockedSequence()
    try storeSequence(current | 1)
    return AnnouncedWrite(sequence: (current | 1) &+ 1, page: nil)
  }

  /// Announces on the page, when there is one, what the write puts at the target name: the
  /// inode of `scratch`, about to be exchanged into place, holding `contents` (see
  /// ``CoordinationPage/announce(endingAt:device:inode:contents:)``). Call it holding the
  /// exclusive lock, before the exchange.
  func announce(_ write: AnnouncedWrite, exchanging scratch: OpenInode, holding contents: FileContents) {
    write.page?.announce(endingAt: write.sequence, device: scratch.device, inode: scratch.inode, contents: contents)
  }

  /// First half of ending a write that succeeded: without a page, the sequence is stored now, so
  /// that a write whose sequence cannot be stored fails before the writer counts it as its own.
  func prepareToPublish(_ write: AnnouncedWrite) throws {
    if write.page == nil { try storeSequence(write.sequence) }
  }

  /// Second half: the page describes what the write left at the target name, and the sequence
  /// turns even. Called after the writer recorded the write as its own, so that a watcher of this
  /// process that wakes for the write's events finds it known. `state` `nil` is `.missing`.
  func publish(_ write: AnnouncedWrite, identity: FileIdentity?, state: FileState?) {
    write.page?.finishWrite(sequence: write.sequence, identity: identity, state: state)
  }

  /// Ends a write that failed, leaving the page describing an older sequence: stale, so that
  /// every reader reads the file.
  func abandon(_ write: AnnouncedWrite) {
    if let page = write.page { page.abandonWrite(sequence: write.sequence) } else { try? storeSequence(write.sequence) }
  }
}
