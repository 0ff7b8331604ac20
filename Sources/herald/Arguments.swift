/// A small command-line parser: `--name value`, `--name=value`, boolean switches, repeatable
/// options and positionals. Unknown flags and missing values are usage errors (exit code 2).
struct Arguments {
    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var values: [String: [String]] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positionals: [String] = []

    /// `valued`: options that take a value; `flags`: switches without one.
    init(_ arguments: [String], valued: Set<String>, flags: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                if argument.hasPrefix("-"), argument != "-" { throw UsageError(description: "unknown option \(argument)") }
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name) {
                guard inline == nil else { throw UsageError(description: "--\(name) takes no value") }
                switches.insert(name)
            } else if valued.contains(name) {
                if let inline {
                    values[name, default: []].append(inline)
                } else {
                    guard index < arguments.count else { throw UsageError(description: "--\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError(description: "unknown option --\(name)")
            }
        }
    }

    func has(_ flag: String) -> Bool { switches.contains(flag) }
    func last(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = last(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                description: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = last(name) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw UsageError(description: "--\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return value
    }
}
