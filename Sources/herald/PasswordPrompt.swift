import Foundation

/// Reads a new password for `herald users add`: from a terminal, twice, without echo (termios), so it
/// is neither shown nor left in the scrollback; from a pipe or file, its first line, so scripts can
/// pipe one in (never an argument: the process table and shell history would show it).
enum PasswordPrompt {
    static let minimumLength = 8

    /// The password, or why there is none (the message to print; exit 1).
    static func read(for name: String) -> Result<String, PromptFailure> {
        let password: String
        if isatty(STDIN_FILENO) == 1 {
            guard let first = readWithoutEcho(prompt: "Password for \(name): ") else { return .failure(.init("no password given")) }
            guard let second = readWithoutEcho(prompt: "Again: ") else { return .failure(.init("no password given")) }
            guard first == second else { return .failure(.init("the two passwords differ; nothing was changed")) }
            password = first
        } else {
            guard var line = readLine(strippingNewline: true) else { return .failure(.init("no password on stdin")) }
            if line.hasSuffix("\r") { line.removeLast() }
            password = line
        }
        guard password.count >= minimumLength else {
            return .failure(.init("a password must have at least \(minimumLength) characters"))
        }
        return .success(password)
    }

    struct PromptFailure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// One line from the terminal on stdin with echo off; the prompt and the newline the user typed go
    /// to stderr. Echo comes back on afterwards, and also when SIGINT, SIGTERM or SIGHUP ends the
    /// process in between (`TerminalEcho`).
    private static func readWithoutEcho(prompt: String) -> String? {
        // Echo off before the prompt: what is typed once the prompt shows must neither echo nor be
        // flushed away by the change of settings.
        TerminalEcho.turnOff()
        FileHandle.standardError.write(Data(prompt.utf8))
        let line = readLine(strippingNewline: true)
        TerminalEcho.restore()
        FileHandle.standardError.write(Data("\n".utf8))
        return line
    }
}

/// The terminal's settings while echo is off, kept where a signal handler can put them back.
/// Thread: the main thread writes `saved` before installing the handlers and restores after removing
/// them; the handlers (any thread, async-signal context) only read it, with `tcsetattr`, which is
/// async-signal-safe.
private enum TerminalEcho {
    nonisolated(unsafe) static var saved = termios()
    static let signals = [SIGINT, SIGTERM, SIGHUP]

    static func turnOff() {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        for number in signals {
            signal(number) { number in
                tcsetattr(STDIN_FILENO, TCSANOW, &TerminalEcho.saved)
                _exit(128 + number)
            }
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    }

    static func restore() {
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
        for number in signals { signal(number, SIG_DFL) }
    }
}
