internal import CLibWebSockets

/// The libwebsockets version this binary was built against (the C module stays inside this module).
public enum LibWebSocketsVersion {
    public static var string: String { String(cString: herald_lws_version()) }
}
