/// What the callback returns to libwebsockets.
enum CallbackAction {
    /// Return 0: carry on.
    case proceed
    /// Return -1 (or 1 in a filter): close or refuse this connection.
    case close
}
