extension FileStorage {
  /// A fresh file system in memory that persists nothing: `.inMemory` is `.inMemory()`.
  public static var inMemory: FileStorage { .inMemory() }
}
