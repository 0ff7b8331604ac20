/// An lws context pointer that may cross threads. @unchecked Sendable: it is only dereferenced by
/// `lws_cancel_service`, which libwebsockets documents as safe from any thread, under the inbox's lock.
struct ContextPointer: @unchecked Sendable {
    let pointer: OpaquePointer
}
