import Foundation

/// The body of a delivery (docs/webhooks.md), in Standard Webhooks' shape: `{"type": "job.failed",
/// "timestamp": "2026-12-06T09:30:00.123Z", "data": {"job": JOB, "durationSeconds": 12.5, "url":
/// "http://HOST:PORT/api/jobs/ID"}}`. `JOB` is the job object of the protocol; the duration is from
/// `startedAt` to `finishedAt` (null for a job cancelled before it ran). Any thread.
public enum WebhookPayload {
    public static func body(record: JobRecord, event: NotifyEvent, jobLink: String?, now: Int64) -> [UInt8] {
        var data: JSONObject = ["job": record.json]
        if let started = record.startedAt, let finished = record.finishedAt {
            data["durationSeconds"] = .double(Double(finished - started) / 1000)
        } else {
            data["durationSeconds"] = .null
        }
        data["url"] = jobLink.map { .string($0 + record.id.rawValue) } ?? .null
        return JSONWriter.encode(["type": .string("job.\(event.rawValue)"), "timestamp": .string(timestamp(now)), "data": .object(data)])
    }

    /// ISO 8601 in UTC with milliseconds.
    static func timestamp(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }
}
