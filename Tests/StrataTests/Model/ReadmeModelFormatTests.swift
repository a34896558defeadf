import Foundation
import Testing
@testable import Strata

/// The JSON model shown in the README must read and validate, so that the documentation stays true.
@Suite struct ReadmeModelFormatTests {
    @Test func readmeJSONModelExampleIsValid() throws {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## The JSON model format"))
        let start = try #require(readme.range(of: "```json\n", range: section.upperBound..<readme.endIndex))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let model = try JSONModelReader.read(Data(readme[start.upperBound..<end.lowerBound].utf8), path: "README.md")
        #expect(model.entities.map(\.name) == ["Book", "EBook", "Page"])
        #expect(model.validate().isEmpty)
    }
}
