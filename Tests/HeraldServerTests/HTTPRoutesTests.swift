import Foundation
import HeraldEngine
import HeraldTestSupport
import XCTest

@testable import HeraldServer

/// The route table alone: every declared route is reached by its method and path, with its
/// parameters; a known path with another method is 405 naming the methods it takes.
final class HTTPRoutesTests: XCTestCase {
    private let api = HTTPAPI(version: "test")

    private func asked(_ method: String, _ path: String, query: [String: String] = [:]) -> (EngineRequest, HTTPQuery)? {
        if case .ask(let request, let query) = api.route(HTTPRequest(method: method, path: path, query: query)) { return (request, query) }
        return nil
    }

    private func response(_ method: String, _ path: String) -> HTTPResponse? {
        if case .respond(let response) = api.route(HTTPRequest(method: method, path: path)) { return response }
        return nil
    }

    func testEveryRouteIsReachedWithItsParameters() {
        XCTAssertEqual(asked("GET", "/healthz")?.0, .statistics)
        XCTAssertEqual(asked("GET", "/api/news")?.1, HTTPQuery("GET /api/news"))
        XCTAssertEqual(asked("GET", "/api/jobs/j-a")?.0, .job("j-a"))
        XCTAssertEqual(
            asked("GET", "/api/jobs/j-a/")?.1, HTTPQuery("GET /api/jobs/{id}", parameters: ["j-a"]), "a trailing slash is the same path")
        XCTAssertEqual(asked("POST", "/api/jobs/j-b/cancel")?.0, .cancel("j-b", by: .anonymousAdmin))
        XCTAssertEqual(asked("GET", "/api/jobs/j-c/log", query: ["offset": "5", "limit": "7"])?.0, .page(job: "j-c", offset: 5, limit: 7))
        XCTAssertEqual(asked("GET", "/api/jobs/j-c/results")?.1, HTTPQuery("GET /api/jobs/{id}/results", parameters: ["j-c"]))
        XCTAssertEqual(Set(HTTPRoutes.all.map(\.name)).count, HTTPRoutes.all.count, "one declaration per route")
    }

    func testAKnownPathWithAnotherMethodIs405AndAnUnknownAPIPath404() {
        let refused = response("DELETE", "/api/jobs/j-a")
        XCTAssertEqual(refused?.status, 405)
        XCTAssertEqual(refused?.headers.first { $0.0 == "allow:" }?.1, "GET")
        XCTAssertEqual(response("PUT", "/api/jobs")?.headers.first { $0.0 == "allow:" }?.1, "GET, POST")
        XCTAssertEqual(response("GET", "/api/jobs/j-a/frobnicate")?.status, 404)
        XCTAssertEqual(response("POST", "/app.js")?.status, 405)
        guard case .file("/app.js") = api.route(HTTPRequest(method: "GET", path: "/app.js")) else { return XCTFail("a file") }
    }

    func testARepliedRouteRendersWithItsParameters() {
        let status = HTTPAPI.Status(metrics: ServerMetrics(), uptimeSeconds: 1, epoch: "e")
        let page = ResultPage(offset: 0, total: 1, values: ["x"], isLog: true, first: 3)
        let rendered = api.render(HTTPQuery("GET /api/jobs/{id}/log", parameters: ["j-z"]), .page(.success(page)), status: status)
        XCTAssertEqual(rendered.status, 200)
        XCTAssertEqual(try JSONParser.parse(rendered.body)["job"], "j-z")
        XCTAssertEqual(try JSONParser.parse(rendered.body)["first"], 3)
        XCTAssertEqual(api.render(HTTPQuery("GET /nowhere"), .news(NewsFeed()), status: status).status, 500)
    }

    func testTheAPIDescriptionIsTheDashboardFolderFile() {
        guard case .file("/openapi.json") = api.route(HTTPRequest(method: "GET", path: "/api/openapi.json")) else {
            return XCTFail("GET /api/openapi.json is read from the dashboard's folder")
        }
        XCTAssertEqual(response("POST", "/api/openapi.json")?.status, 405)
    }

    /// The OpenAPI document (Public/openapi.json) describes exactly the routes this table declares:
    /// a route added here without its description, or described but gone, fails.
    func testTheOpenAPIDocumentDescribesEveryRoute() throws {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Public/openapi.json")
        let document = try JSONParser.parse(Array(try Data(contentsOf: checkout.standardizedFileURL)))
        let paths = try XCTUnwrap(document["paths"]?.objectValue)
        var described: Set<String> = []
        for (path, item) in paths.entries {
            for method in ["get", "post", "put", "delete", "patch"] where item[method] != nil {
                described.insert("\(method.uppercased()) \(path)")
            }
        }
        XCTAssertEqual(described, Set(HTTPRoutes.all.map(\.name)))
        XCTAssertEqual(StaticFiles.contentTypes["json"], "application/json")
    }
}
