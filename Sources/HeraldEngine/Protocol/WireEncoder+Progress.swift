/// The `progress` event written straight to bytes, without building a `JSONObject` (a dictionary of
/// ten keys, each hashed to insert and again to write): on the dispatcher queue that object was
/// about four fifths of the cost of an event from a ticker at full speed (docs/benchmarks.md).
///
/// It must write exactly what `JSONWriter` writes for `object(event:seq:ts:)`: the same keys in the
/// same order as `JobProgress.write(into:)`, each scalar by the writer's own function. Whoever adds a
/// progress field adds it in both places; `WireEncoderFastPathTests` fails until they agree.
extension WireEncoder {
    static func encodeProgress(job: JobID, _ progress: JobProgress, seq: Int64, ts: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + job.rawValue.utf8.count + (progress.message?.utf8.count ?? 0))
        out.append(contentsOf: #"{"type":"progress","seq":"#.utf8)
        JSONWriter.writeInt(seq, into: &out)
        out.append(contentsOf: #","ts":"#.utf8)
        JSONWriter.writeInt(ts, into: &out)
        out.append(contentsOf: #","job":"#.utf8)
        JSONWriter.writeString(job.rawValue, into: &out)
        out.append(contentsOf: #","completed":"#.utf8)
        JSONWriter.writeInt(progress.completed, into: &out)
        out.append(contentsOf: #","total":"#.utf8)
        JSONWriter.writeInt(progress.total, into: &out)
        out.append(contentsOf: #","fraction":"#.utf8)
        JSONWriter.writeNumber(progress.fraction, into: &out)
        out.append(contentsOf: #","message":"#.utf8)
        if let message = progress.message { JSONWriter.writeString(message, into: &out) } else { JSONWriter.writeNull(into: &out) }
        out.append(contentsOf: #","rate":"#.utf8)
        if let rate = progress.rate { JSONWriter.writeNumber(rate, into: &out) } else { JSONWriter.writeNull(into: &out) }
        out.append(contentsOf: #","eta":"#.utf8)
        if let eta = progress.eta { JSONWriter.writeNumber(eta, into: &out) } else { JSONWriter.writeNull(into: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
