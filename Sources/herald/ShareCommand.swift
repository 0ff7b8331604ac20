import Foundation
import FoundationNetworking
import HeraldEngine
import HeraldLWS
import HeraldSupport

/// `herald share JOB [--for 1h] [URL]`: makes a view-only link to one job (`POST /api/jobs/ID/share`,
/// docs/security.md) and prints its URL alone on stdout; when it ends goes to stderr. Exit 0 done,
/// 1 refused (no such job, a viewer's token), 2 bad usage or no server.
enum ShareCommand {
    static func run(_ argv: [String]) -> Int32 {
        let request: URLRequest
        do {
            let arguments = try Arguments(argv, valued: ["token", "for"], flags: ["help"])
            if arguments.has("help") {
                print(Help.share)
                return 0
            }
            guard let job = arguments.positionals.first, JobID.isWellFormed(job) else {
                throw Arguments.UsageError(description: "share needs a job ID")
            }
            guard arguments.positionals.count <= 2 else {
                throw Arguments.UsageError(description: "unexpected argument \(arguments.positionals[2])")
            }
            let server = try StreamSession.url(from: Array(arguments.positionals.dropFirst()))
            var components = URLComponents()
            components.scheme = server.isSecure ? "https" : "http"
            components.host = server.host
            components.port = server.port
            components.path = "/api/jobs/\(job)/share"
            if let lifetime = arguments.last("for") {
                guard DurationText.parse(lifetime) != nil else {
                    throw Arguments.UsageError(
                        description: "--for \"\(lifetime)\" is not a duration; use \(DurationText.expected)")
                }
                components.queryItems = [URLQueryItem(name: "for", value: lifetime)]
            }
            guard let url = components.url else { throw Arguments.UsageError(description: "cannot make a URL for \(server.host)") }
            var made = URLRequest(url: url, timeoutInterval: 10)
            made.httpMethod = "POST"
            if let token = arguments.last("token") ?? ProcessInfo.processInfo.environment["HERALD_TOKEN"], !token.isEmpty {
                made.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            }
            request = made
        } catch {
            FileHandle.standardError.write(Data("herald share: \(error)\n".utf8))
            return 2
        }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            answer.set(data: data, status: (response as? HTTPURLResponse)?.statusCode, error: error)
            done.signal()
        }.resume()
        done.wait()
        let (data, status, failure) = answer.get()
        guard let status, let data, let body = try? JSONParser.parse(Array(data)) else {
            FileHandle.standardError.write(
                Data("herald share: \(failure.map { "\($0.localizedDescription)" } ?? "no answer from the server")\n".utf8))
            return 2
        }
        guard status == 201, let link = body["url"]?.stringValue, let expires = body["expiresAt"]?.intValue else {
            FileHandle.standardError.write(Data("herald share: \(body["message"]?.stringValue ?? "refused (HTTP \(status))")\n".utf8))
            return 1
        }
        Output.line(link)
        let until = Date(timeIntervalSince1970: Double(expires) / 1000)
        FileHandle.standardError.write(
            Data("herald share: view-only link to \(request.url?.pathComponents.dropLast().last ?? "the job") until \(until)\n".utf8))
        return 0
    }

    /// The URLSession callback's result, handed to the waiting thread. @unchecked Sendable: written
    /// once before the semaphore is signalled and read after it is waited for.
    private final class Answer: @unchecked Sendable {
        private var data: Data?
        private var status: Int?
        private var error: (any Error)?
        func set(data: Data?, status: Int?, error: (any Error)?) {
            self.data = data
            self.status = status
            self.error = error
        }
        func get() -> (Data?, Int?, (any Error)?) { (data, status, error) }
    }
}
