import Foundation

/// Unbuffered standard output: a pipe sees each line at once (print() would buffer it).
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
