import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Every validation rule, each with the message a user sees.
@Suite struct ModelValidationTests {
    /// A valid two-entity model to break in each test: Author ⟷ Book.
    static var library: ObjectModel {
        var author = EntityDescription(name: "Author")
        author.attributes = [AttributeDescription(name: "name", type: .string)]
        var books = RelationshipDescription(name: "books", destination: "Book", isToMany: true)
        books.inverseName = "author"
        author.relationships = [books]
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "title", type: .string), AttributeDescription(name: "pages", type: .integer16)]
        var writer = RelationshipDescription(name: "author", destination: "Author")
        writer.inverseName = "books"
        book.relationships = [writer]
        return ObjectModel(entities: [author, book])
    }

    private func issues(_ change: (inout ObjectModel) -> Void) -> [String] {
        var model = Self.library
        change(&model)
        return model.validate().map(\.description)
    }

    @Test func theBaseModelIsValid() {
        #expect(Self.library.validate().isEmpty)
    }

    @Test func unknownDestinationEntity() {
        #expect(issues { $0.entities[1].relationships[0].destinationEntityName = "Autor" } == [
            "error: entity 'Book', property 'author': the destination entity 'Autor' does not exist; did you mean 'Author'?",
        ])
    }

    @Test func inverseThatDoesNotExist() {
        let found = issues { $0.entities[1].relationships[0].inverseName = "bookz" }
        #expect(found.contains("error: entity 'Book', property 'author': the inverse 'bookz' is not a relationship of 'Author'; did you mean 'books'?"))
    }

    @Test func inverseThatDoesNotPointBack() {
        let found = issues { model in
            var other = RelationshipDescription(name: "favourite", destination: "Book")
            other.inverseName = "author"
            model.entities[0].relationships.append(other)
            model.entities[1].relationships[0].inverseName = "favourite"
        }
        // Xcode compiles such a model (artsy's Image.artist), so it is a warning.
        #expect(found.contains("warning: entity 'Author', property 'books': the inverse 'Book.author' does not point back: it points to Author.favourite"))
    }

    @Test func inverseRecordedOnAnotherEntity() {
        let found = issues { $0.entities[1].relationships[0].inverseEntityName = "Book" }
        #expect(found == ["error: entity 'Book', property 'author': the inverse is recorded on entity 'Book' but the destination is 'Author'"])
    }

    @Test func unknownParentEntity() {
        #expect(issues { $0.entities[1].superentityName = "Publication" } == [
            "error: entity 'Book': the parent entity 'Publication' does not exist",
        ])
    }

    @Test func cyclicParentEntities() {
        let found = issues { model in
            model.entities[0].superentityName = "Book"
            model.entities[1].superentityName = "Author"
        }
        #expect(found.contains("error: entity 'Author': the parent entities form a cycle: Author → Book → Author"))
        #expect(found.contains("error: entity 'Book': the parent entities form a cycle: Book → Author → Book"))
    }

    @Test func duplicateEntityNames() {
        #expect(issues { $0.entities.append(EntityDescription(name: "Book")) } == [
            "error: entity 'Book': the model defines this entity more than once",
        ])
    }

    @Test func duplicatePropertyNames() {
        let found = issues { $0.entities[1].attributes.append(AttributeDescription(name: "author", type: .string)) }
        #expect(found == ["error: entity 'Book', property 'author': the entity declares this property more than once"])
    }

    @Test func duplicatePropertyNamesAcrossAncestors() {
        let found = issues { model in
            var ebook = EntityDescription(name: "EBook")
            ebook.superentityName = "Book"
            ebook.attributes = [AttributeDescription(name: "title", type: .string)]
            model.entities.append(ebook)
        }
        #expect(found == ["error: entity 'EBook', property 'title': the parent entity 'Book' already declares a property with this name"])
    }

    /// The forms Xcode leaves behind when a type changes, which real models hold and Core Data reads.
    @Test(arguments: [
        (AttributeType.integer32, "1.5", "'1.5' is not a valid Integer 32 (-2147483648…2147483647); Core Data reads it as 1"),
        (.integer16, "NO", "'NO' is not a valid Integer 16 (-32768…32767); Core Data reads it as 0"),
        (.integer32, "YES", "'YES' is not a valid Integer 32 (-2147483648…2147483647); Core Data reads it as 1"),
        (.integer64, "0.0", "'0.0' is not a valid Integer 64 (-9223372036854775808…9223372036854775807); Core Data reads it as 0"),
        (.boolean, "0.0", "'0.0' is not a valid Boolean; Core Data reads it as false"),
        (.double, "YES", "'YES' is not a valid Double; Core Data reads it as 0.0"),
    ])
    func defaultValueWrittenAsXcodeLetsPeopleWriteItIsAWarning(type: AttributeType, text: String, message: String) {
        let found = issues { model in
            var attribute = AttributeDescription(name: "value", type: type)
            attribute.defaultValue = text
            model.entities[1].attributes.append(attribute)
        }
        #expect(found == ["warning: entity 'Book', property 'value': the default value \(message)"])
    }

    /// Text that parses as no type's value, or as a number the type cannot hold, would be
    /// stored as another value: the model is refused, naming entity and attribute.
    @Test(arguments: [
        (AttributeType.integer16, "99999", "'99999' is out of the range of Integer 16 (-32768…32767)"),
        (.integer16, "-32769", "'-32769' is out of the range of Integer 16 (-32768…32767)"),
        (.integer32, "2147483648", "'2147483648' is out of the range of Integer 32 (-2147483648…2147483647)"),
        (.integer64, "9223372036854775808", "'9223372036854775808' is out of the range of Integer 64 (-9223372036854775808…9223372036854775807)"),
        (.integer64, "1e400", "'1e400' is not a finite number"),
        (.double, "1e400", "'1e400' is not a finite number"),
        (.double, "nan", "'nan' is not a finite number"),
        (.float, "1e39", "'1e39' is out of the range of Float (±3.4028235e+38)"),
        (.double, "abc", "'abc' is not a valid Double"),
        (.decimal, "12abc", "'12abc' is not a valid Decimal"),
        (.boolean, "maybe", "'maybe' is not a valid Boolean"),
        (.date, "yesterday", "'yesterday' is not a valid Date (seconds since 2001-01-01)"),
        (.uuid, "not-a-uuid", "'not-a-uuid' is not a valid UUID"),
        (.binary, "abc", "'abc' cannot be read: a Binary attribute has no value written as text"),
    ])
    func defaultValueThatDoesNotParseIsAnError(type: AttributeType, text: String, message: String) {
        let found = issues { model in
            var attribute = AttributeDescription(name: "value", type: type)
            attribute.defaultValue = text
            model.entities[1].attributes.append(attribute)
        }
        #expect(found == ["error: entity 'Book', property 'value': the default value \(message)"])
    }

    @Test(arguments: [AttributeType.integer16, .integer32, .integer64, .double, .float, .decimal])
    func boundsThatAreNotFiniteOrOutOfRangeAreErrors(type: AttributeType) {
        var attribute = AttributeDescription(name: "value", type: type)
        attribute.minValue = "-1e400"
        attribute.maxValue = "1e300"
        let found = attribute.valueIssues()
        #expect(found.map(\.severity) == [.error, type == .double ? nil : .error].compactMap { $0 })
        #expect(found.first?.message == "the minimum '-1e400' is not a finite number")
    }

    /// What an object gets as its default is what Core Data reads from the text.
    @Test(arguments: [
        (AttributeType.integer16, "NO", AttributeValue.integer(0)), (.integer32, "YES", .integer(1)), (.integer64, "0.0", .integer(0)),
        (.integer16, "12abc", .integer(12)), (.integer16, " -7 ", .integer(-7)), (.boolean, "0.0", .boolean(false)),
        (.boolean, "1.0", .boolean(true)), (.boolean, "0", .boolean(false)), (.boolean, "YES", .boolean(true)),
        (.boolean, "true", .boolean(true)), (.double, "2.5e3x", .double(2500)), (.double, ".5", .double(0.5)),
    ])
    func defaultValuesReadAsCoreDataReadsThem(type: AttributeType, text: String, value: AttributeValue) {
        var attribute = AttributeDescription(name: "value", type: type)
        attribute.defaultValue = text
        #expect(attribute.defaultAttributeValue == value)
    }

    @Test(arguments: [
        (AttributeType.integer16, "5"), (.boolean, "YES"), (.boolean, "0"), (.double, "0.0"), (.decimal, "-12.50"), (.date, "694224000"),
        (.uuid, "5F3C1A2B-0000-4000-8000-000000000001"), (.string, "anything"),
    ])
    func defaultValuesThatParse(type: AttributeType, text: String) {
        var attribute = AttributeDescription(name: "value", type: type)
        attribute.defaultValue = text
        #expect(attribute.valueIssues().isEmpty)
    }

    @Test func minimumAboveMaximumIsAWarningAndAnUnparsableLengthAnError() {
        var attribute = AttributeDescription(name: "rating", type: .double)
        attribute.minValue = "5"
        attribute.maxValue = "1"
        #expect(attribute.valueIssues().map(\.message) == ["the minimum 5 is greater than the maximum 1: no value can be saved"])
        #expect(attribute.valueIssues().map(\.severity) == [.warning])
        var name = AttributeDescription(name: "name", type: .string)
        name.minValue = "-1"
        #expect(name.valueIssues().map(\.message) == ["the minimum '-1' is not a valid length (a whole number, 0 or more)"])
        #expect(name.valueIssues().map(\.severity) == [.error])
        #expect(name.minimumBound == nil)
    }

    @Test func regularExpressionThatDoesNotCompileIsAnError() {
        var attribute = AttributeDescription(name: "isbn", type: .string)
        attribute.regularExpression = "[0-9"
        #expect(attribute.valueIssues().map(\.message) == ["the regular expression '[0-9' does not compile"])
        #expect(attribute.valueIssues().map(\.severity) == [.error])
    }

    @Test func storedUndefinedAttributeIsAnError() {
        let found = issues { $0.entities[1].attributes.append(AttributeDescription(name: "blob", type: .undefined)) }
        #expect(found == ["error: entity 'Book', property 'blob': the type Undefined is only allowed for transient attributes"])
    }

    @Test func uniquenessConstraintNamingAnUnknownProperty() {
        #expect(issues { $0.entities[1].uniquenessConstraints = [["isbn"]] } == [
            "error: entity 'Book': the uniqueness constraint (isbn) names an unknown property 'isbn'",
        ])
    }

    @Test func fetchIndexNamingAnUnknownProperty() {
        let found = issues { $0.entities[1].fetchIndexes = [FetchIndexDescription(name: "byTitle", elements: [.init(property: "titel")])] }
        #expect(found == ["error: entity 'Book': the fetch index 'byTitle' names an unknown property 'titel'; did you mean 'title'?"])
    }

    @Test func constraintsMayNameInheritedProperties() {
        let found = issues { model in
            var ebook = EntityDescription(name: "EBook")
            ebook.superentityName = "Book"
            ebook.uniquenessConstraints = [["title"]]
            model.entities.append(ebook)
        }
        #expect(found.isEmpty)
    }

    @Test func minCountAboveMaxCount() {
        let found = issues { model in
            model.entities[0].relationships[0].minCount = 5
            model.entities[0].relationships[0].maxCount = 2
        }
        #expect(found == ["error: entity 'Author', property 'books': minCount 5 is greater than maxCount 2"])
    }

    @Test func toOneMinCountAboveMaxCount() {
        let found = issues { $0.entities[1].relationships[0].minCount = 3 }
        #expect(found == ["error: entity 'Book', property 'author': minCount 3 is greater than maxCount 1"])
    }

    @Test func countsBeyondWhatTheHashCanHold() {
        let found = issues { $0.entities[0].relationships[0].maxCount = Int(UInt32.max) + 1 }
        #expect(found == ["error: entity 'Author', property 'books': minCount and maxCount must lie between 0 and 4294967295"])
    }

    @Test func undefinedTypeOnlyForTransientAttributes() {
        let found = issues { $0.entities[1].attributes.append(AttributeDescription(name: "scratch", type: .undefined)) }
        #expect(found == ["error: entity 'Book', property 'scratch': the type Undefined is only allowed for transient attributes"])
        #expect(issues { model in
            var scratch = AttributeDescription(name: "scratch", type: .undefined)
            scratch.isTransient = true
            model.entities[1].attributes.append(scratch)
        }.isEmpty)
    }

    @Test func controlCharactersAModelFileCannotHold() {
        let found = issues { model in
            model.entities[1].attributes[0].defaultValue = "a\u{1}b"
            model.entities[0].userInfo = ["note": "bell\u{7}"]
        }
        #expect(found == [
            "error: entity 'Author': a name or userInfo entry contains a control character that a model file cannot hold",
            "error: entity 'Book', property 'title': a value contains a control character that a model file cannot hold",
        ])
        #expect(issues { $0.entities[1].attributes[0].defaultValue = "tab\tand\nnewline" }.isEmpty)
    }

    @Test func abstractDestinationWithoutSubentitiesIsAWarning() {
        var model = Self.library
        model.entities[0].isAbstract = true
        let found = model.validate()
        #expect(found.map(\.severity) == [.warning])
        #expect(found.first?.description
            == "warning: entity 'Book', property 'author': the destination 'Author' is abstract and has no sub-entity, so the relationship can never hold an object")
    }

    @Test func configurationsAndTemplatesNamingUnknownEntities() {
        let found = issues { model in
            model.configurations = [ModelConfiguration(name: "Cloud", entityNames: ["Books"])]
            model.fetchRequestTemplates = [FetchRequestTemplate(name: "All", entityName: "Writer")]
        }
        #expect(found == [
            "error: configuration 'Cloud' names an unknown entity 'Books'; did you mean 'Book'?",
            "error: fetch request 'All' names an unknown entity 'Writer'",
        ])
    }

    @Test func loadingAnInvalidModelFailsNamingTheFile() throws {
        let temporary = try TemporaryFolder("strata")
        let folder = temporary.url
        var model = Self.library
        model.entities[1].relationships[0].destinationEntityName = "Autor"
        let url = folder.appendingPathComponent("Broken.xcdatamodel")
        try XcodeModelWriter.write(model, toModelFolder: url)
        #expect {
            _ = try ModelLoader.loadValidated(url)
        } throws: { error in
            let text = String(describing: error)
            return text.contains("Broken.xcdatamodel/contents: the model has 1 error")
                && text.contains("Broken.xcdatamodel/contents: error: entity 'Book', property 'author': the destination entity 'Autor' does not exist")
        }
    }
}
