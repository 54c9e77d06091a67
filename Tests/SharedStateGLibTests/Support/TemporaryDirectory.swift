import TestSupport

/// The tests' temporary directories, from the test support shared by both test targets.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory
