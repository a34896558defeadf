import ArgumentParser
import Foundation
import Strata

/// Shell completion of an ENTITY argument: the entity names of the model that `--model` (or
/// `--store`, its model) on the command line being typed names, else $STRATA_MODEL or
/// $STRATA_STORE, that start with what is typed. Nothing when no model can be read: a
/// completion never prints an error into the user's line.
enum EntityCompletion {
    static let kind = CompletionKind.custom { words, _, prefix in
        entityNames(words: words).filter { $0.hasPrefix(prefix) }
    }

    /// The entity names of the model that the options among `words` give.
    static func entityNames(words: [String]) -> [String] {
        var arguments: [String] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            for option in ["--model", "--store", "--model-version"] {
                if word == option, index + 1 < words.count {
                    arguments += [option, words[index + 1]]
                } else if word.hasPrefix(option + "=") {
                    arguments.append(word)
                }
            }
            index += 1
        }
        // A model's warnings must not reach the completions, which standard output carries.
        StrataCLI.bootstrapLogging(level: .fatal)
        guard let options = try? StoreOptions.parse(arguments),
              let model = try? options.loadModelOrStoresModel().model
        else { return [] }
        return model.entities.map(\.name).sorted()
    }
}
