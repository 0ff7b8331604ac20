import HeraldAccess
import Testing

@Suite struct PrincipalTests {
    @Test func rolesIncludeTheOnesBelowExceptWorker() {
        let viewer = Principal(name: "v", role: .viewer, source: .key(name: "v"))
        let op = Principal(name: "o", role: .operator, source: .key(name: "o"))
        let admin = Principal(name: "a", role: .admin, source: .key(name: "a"))
        let worker = Principal(name: "w", role: .worker, source: .key(name: "w"))
        #expect(viewer.refusal(of: .watch) == nil)
        #expect(viewer.refusal(of: .start(kind: "search"))?.kind == .forbidden)
        #expect(op.refusal(of: .start(kind: "search")) == nil)
        #expect(op.refusal(of: .readAudit)?.kind == .forbidden)
        #expect(admin.refusal(of: .readAudit) == nil)
        #expect(worker.refusal(of: .watch)?.kind == .forbidden)
        #expect(worker.refusal(of: .work) == nil)
        #expect(viewer.refusal(of: .work) != nil)
    }

    @Test func refusalNamesWhoAndWhat() {
        let viewer = Principal(name: "ann", role: .viewer, source: .session(user: "ann", session: "s1"))
        #expect(viewer.refusal(of: .start(kind: "deploy"))?.message == "ann (viewer) may not start jobs of kind deploy")
    }

    @Test func kindScopeLimitsStarts() {
        let op = Principal(name: "ci", role: .operator, scope: AccessScope(kinds: ["build"]), source: .key(name: "ci"))
        #expect(op.refusal(of: .start(kind: "build")) == nil)
        #expect(op.refusal(of: .start(kind: "deploy"))?.kind == .forbidden)
        let oneJob = Principal(name: "share:x", role: .viewer, scope: AccessScope(jobs: ["7"]), source: .shareLink(id: "x"))
        #expect(oneJob.scope.contains(kind: "build", job: "7"))
        #expect(!oneJob.scope.contains(kind: "build", job: "8"))
    }

    @Test func operatorsCancelTheirOwnAndAdminsAnyones() {
        let op = Principal(name: "ann", role: .operator, source: .key(name: "ann"))
        let admin = Principal(name: "root", role: .admin, source: .key(name: "root"))
        #expect(op.refusalToCancel(job: "1", kind: "k", startedBy: "ann") == nil)
        #expect(op.refusalToCancel(job: "1", kind: "k", startedBy: "schedule:nightly") == nil)
        #expect(op.refusalToCancel(job: "1", kind: "k", startedBy: "bob")?.message == "ann (operator) may not cancel other people's jobs")
        #expect(admin.refusalToCancel(job: "1", kind: "k", startedBy: "bob") == nil)
        let scoped = Principal(name: "ann", role: .operator, scope: AccessScope(kinds: ["k"]), source: .key(name: "ann"))
        #expect(scoped.refusalToCancel(job: "1", kind: "other", startedBy: "ann")?.kind == .forbidden)
    }
}
