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
        JSONWriter.writeRaw(#"{"type":"progress","seq":"#, into: &out)
        JSONWriter.writeInt(seq, into: &out)
        JSONWriter.writeRaw(#","ts":"#, into: &out)
        JSONWriter.writeInt(ts, into: &out)
        JSONWriter.writeRaw(#","job":"#, into: &out)
        JSONWriter.writeString(job.rawValue, into: &out)
        JSONWriter.writeRaw(#","completed":"#, into: &out)
        JSONWriter.writeInt(progress.completed, into: &out)
        JSONWriter.writeRaw(#","total":"#, into: &out)
        JSONWriter.writeInt(progress.total, into: &out)
        JSONWriter.writeRaw(#","fraction":"#, into: &out)
        JSONWriter.writeNumber(progress.fraction, into: &out)
        JSONWriter.writeRaw(#","message":"#, into: &out)
        if let message = progress.message { JSONWriter.writeString(message, into: &out) } else { JSONWriter.writeNull(into: &out) }
        JSONWriter.writeRaw(#","rate":"#, into: &out)
        if let rate = progress.rate { JSONWriter.writeNumber(rate, into: &out) } else { JSONWriter.writeNull(into: &out) }
        JSONWriter.writeRaw(#","eta":"#, into: &out)
        if let eta = progress.eta { JSONWriter.writeNumber(eta, into: &out) } else { JSONWriter.writeNull(into: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
