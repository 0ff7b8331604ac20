import HeraldAccess
import HeraldEngine
import HeraldSupport

/// The audit trail (docs/security.md, "Audit"): what the hub records of who did what. Appending
/// never waits (the trail writes on its own queue). Thread: the service thread.
extension StreamHub {
    func audit(_ event: @autoclosure () -> AuditEvent) {
        guard let trail = configuration.audit else { return }
        trail.append(event())
    }

    /// A connection opened with a key, a JWT or a share link: one line per connection, not per message.
    func auditOpened(_ principal: Principal, peer: String) {
        let now = WallClock.millis()
        switch principal.source {
        case .key, .jwt: audit(.credentialUsed(principal, address: peer, at: now))
        case .shareLink: audit(.shareUsed(principal, address: peer, at: now))
        default: break
        }
    }

    /// A REST request made with a key or a JWT: recorded once a minute per credential and address
    /// (`CredentialUseLog`, shared by every service thread), so the trail shows who uses which key
    /// from where without a line per poll of a busy client.
    func auditRESTUse(_ principal: Principal, peer: String) {
        guard configuration.audit != nil else { return }
        switch principal.source {
        case .key, .jwt: break
        default: return
        }
        guard configuration.credentialUses.shouldRecord("\(principal.name)\u{0}\(peer)") else { return }
        audit(.credentialUsed(principal, address: peer, at: WallClock.millis()))
    }

    /// A start or cancel the engine took, by whoever asked.
    func auditTaken(_ type: String, _ record: JobRecord, by principal: Principal, peer: String?) {
        let now = WallClock.millis()
        switch type {
        case "start": audit(.start(by: principal, job: record.id.rawValue, kind: record.kind.rawValue, address: peer, at: now))
        case "cancel": audit(.cancel(by: principal, job: record.id.rawValue, kind: record.kind.rawValue, address: peer, at: now))
        default: break
        }
    }

    /// A refusal of access (401 or 403), with who was refused when known.
    func auditRefused(_ error: EngineError, principal: Principal?, peer: String?, job: String? = nil) {
        guard error.code == .unauthorized || error.code == .forbidden else { return }
        let refusal = AccessRefusal(error.code == .forbidden ? .forbidden : .unauthorized, error.message)
        audit(.refused(refusal, principal: principal, address: peer, job: job, at: WallClock.millis()))
    }
}
