import ConcurrencyExtras
import Observation
import SharedState
import Testing

// The multi-step sign-up flow of the Composable Architecture's case studies, without any UI:
// the flow owns one `Shared<SignUpData>`, each step's state holds it (or a part of it), and the
// summary edits earlier steps' data and sees every change.

private struct SignUpData: Equatable, Sendable {
  var email = ""
  var firstName = ""
  var lastName = ""
  var password = ""
  var passwordConfirmation = ""
  var phoneNumber = ""
  var topics: Set<Topic> = []

  enum Topic: String, CaseIterable, Sendable {
    case advancedSwift = "Advanced Swift"
    case composableArchitecture = "Composable Architecture"
    case concurrency = "Concurrency"
    case testing = "Testing"
  }
}

private struct SignUpFlow {
  @Shared var signUpData: SignUpData

  init() {
    _signUpData = Shared(value: SignUpData())
  }

  func basics() -> BasicsStep { BasicsStep(signUpData: $signUpData) }
  func personalInfo() -> PersonalInfoStep { PersonalInfoStep(signUpData: $signUpData) }
  func topics() -> TopicsStep { TopicsStep(topics: $signUpData.topics) }
  func summary() -> SummaryStep { SummaryStep(signUpData: $signUpData) }
}

private struct BasicsStep {
  @Shared var signUpData: SignUpData
  var isEditingFromSummary = false

  var canContinue: Bool {
    !signUpData.email.isEmpty && !signUpData.password.isEmpty
      && signUpData.password == signUpData.passwordConfirmation
  }

  func enter(email: String, password: String) {
    $signUpData.email.withLock { $0 = email }
    $signUpData.withLock {
      $0.password = password
      $0.passwordConfirmation = password
    }
  }
}

private struct PersonalInfoStep {
  @Shared var signUpData: SignUpData
  var isEditingFromSummary = false

  func enter(firstName: String, lastName: String, phoneNumber: String) {
    $signUpData.firstName.withLock { $0 = firstName }
    $signUpData.lastName.withLock { $0 = lastName }
    $signUpData.phoneNumber.withLock { $0 = phoneNumber }
  }
}

private struct TopicsStep {
  @Shared var topics: Set<SignUpData.Topic>
  var isEditingFromSummary = false

  var canContinue: Bool { !topics.isEmpty }

  func toggle(_ topic: SignUpData.Topic) {
    $topics.withLock { topics in
      if topics.remove(topic) == nil { topics.insert(topic) }
    }
  }
}

private struct SummaryStep {
  @Shared var signUpData: SignUpData

  func editBasics() -> BasicsStep { BasicsStep(signUpData: $signUpData, isEditingFromSummary: true) }
  func editPersonalInfo() -> PersonalInfoStep {
    PersonalInfoStep(signUpData: $signUpData, isEditingFromSummary: true)
  }
  func editTopics() -> TopicsStep { TopicsStep(topics: $signUpData.topics, isEditingFromSummary: true) }

  var text: String {
    let topics = signUpData.topics.map(\.rawValue).sorted().joined(separator: ", ")
    return "\(signUpData.firstName) \(signUpData.lastName) <\(signUpData.email)> \(signUpData.phoneNumber): \(topics)"
  }
}

@Suite("Sign-up flow")
struct SignUpFlowTests {
  @Test func stepsFillOneSharedValue() {
    let flow = SignUpFlow()
    let basics = flow.basics()
    #expect(!basics.canContinue)
    basics.enter(email: "blob@example.com", password: "secret")
    #expect(basics.canContinue)

    flow.personalInfo().enter(firstName: "Blob", lastName: "McBlob", phoneNumber: "212-555-1234")

    let topics = flow.topics()
    #expect(!topics.canContinue)
    topics.toggle(.testing)
    topics.toggle(.concurrency)
    #expect(topics.canContinue)

    #expect(
      flow.signUpData
        == SignUpData(
          email: "blob@example.com", firstName: "Blob", lastName: "McBlob", password: "secret",
          passwordConfirmation: "secret", phoneNumber: "212-555-1234", topics: [.testing, .concurrency]
        )
    )
    #expect(flow.summary().text == "Blob McBlob <blob@example.com> 212-555-1234: Concurrency, Testing")
  }

  @Test func summaryEditsEarlierStepsAndSeesEveryChange() {
    let flow = SignUpFlow()
    flow.basics().enter(email: "blob@example.com", password: "secret")
    flow.personalInfo().enter(firstName: "Blob", lastName: "McBlob", phoneNumber: "212-555-1234")
    flow.topics().toggle(.testing)
    let summary = flow.summary()

    let editBasics = summary.editBasics()
    #expect(editBasics.isEditingFromSummary)
    editBasics.enter(email: "blob.jr@example.com", password: "secret")
    #expect(summary.signUpData.email == "blob.jr@example.com")

    let phoneNumber: Shared<String> = summary.editPersonalInfo().$signUpData.phoneNumber
    phoneNumber.withLock { $0 = "646-555-0000" }
    #expect(summary.signUpData.phoneNumber == "646-555-0000")

    let editTopics = summary.editTopics()
    editTopics.toggle(.advancedSwift)
    editTopics.toggle(.testing)
    #expect(summary.signUpData.topics == [.advancedSwift])

    // Every step, old and new, holds the same value.
    #expect(flow.signUpData == summary.signUpData)
    #expect(flow.topics().topics == [.advancedSwift])
    #expect(summary.text == "Blob McBlob <blob.jr@example.com> 646-555-0000: Advanced Swift")
  }

  @Test func summaryObservesEditsMadeInAStep() {
    let flow = SignUpFlow()
    let summary = flow.summary()
    let redraws = LockIsolated(0)
    withObservationTracking {
      _ = summary.text
    } onChange: {
      redraws.withValue { $0 += 1 }
    }
    summary.editTopics().toggle(.composableArchitecture)
    #expect(redraws.value == 1)
  }
}
