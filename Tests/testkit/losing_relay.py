"""A TCP relay on a loopback port of its own to a server's, that can lose one reply: a link that fails
just after the server carried a command out, so the client never learns that it did."""

import socket
import threading


class LosingRelay:
    """Relays every connection to 127.0.0.1:`target_port`. After `lose_reply_to(marker)`, the next
    request whose bytes hold `marker` reaches the server whole, and the server's reply is read and
    thrown away: the relay then closes that connection both ways. Other connections, and new ones,
    pass as before. `lost` holds the replies thrown away (their first bytes). Stop it with `close()`."""

    def __init__(self, target_port: int):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lost: list[bytes] = []
        self._marker: bytes | None = None
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_reply_to(self, marker: bytes):
        with self._lock:
            self._marker = marker

    def close(self):
        self.listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, []
        for sock in sockets:
            sock.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port))
            losing = threading.Event()
            with self._lock:
                self._sockets += [client, server]
            threading.Thread(target=self._requests, args=(client, server, losing), daemon=True).start()
            threading.Thread(target=self._replies, args=(server, client, losing), daemon=True).start()

    def _requests(self, client: socket.socket, server: socket.socket, losing: threading.Event):
        tail = b""
        try:
            while data := client.recv(65536):
                with self._lock:
                    # A marker may straddle two reads: look in what the last one ended with too.
                    if self._marker is not None and self._marker in tail + data:
                        self._marker = None
                        losing.set()
                tail = data[-64:]
                server.sendall(data)
        except OSError:
            pass

    def _replies(self, server: socket.socket, client: socket.socket, losing: threading.Event):
        try:
            while data := server.recv(65536):
                if losing.is_set():
                    with self._lock:
                        self.lost.append(data)
                    break
                client.sendall(data)
        except OSError:
            pass
        for sock in (client, server):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
