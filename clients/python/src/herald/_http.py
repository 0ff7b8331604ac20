"""The REST half of the client: JSON over HTTP with urllib, errors turned into `HeraldError`s."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from .errors import HeraldConnectionError, HeraldError, error_for


def split_url(url: str) -> tuple[str, str]:
    """The HTTP base (``http://host:port``) and the WebSocket URL (``ws://host:port/ws``) of a server
    given as either: ``http://``/``https://`` (its address) or ``ws://``/``wss://`` (its stream)."""
    parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    scheme = parts.scheme.lower()
    secure = {"http": False, "ws": False, "https": True, "wss": True}.get(scheme)
    if secure is None or not parts.netloc:
        raise ValueError(f"{url!r} is not a Herald URL (for example http://127.0.0.1:8080 or ws://127.0.0.1:8080/ws)")
    path = parts.path.rstrip("/")
    if scheme in ("ws", "wss") and path.endswith("/ws"):
        path = path[: -len("/ws")]
    http = f"{'https' if secure else 'http'}://{parts.netloc}{path}"
    ws = f"{'wss' if secure else 'ws'}://{parts.netloc}{path}/ws"
    return http, ws


class HTTPTransport:
    """Thread: any; it keeps no state between calls but its settings."""

    def __init__(self, base: str, token: str | None, timeout: float, ssl_context: ssl.SSLContext | None) -> None:
        self.base = base
        self.token = token
        self.timeout = timeout
        self.ssl_context = ssl_context

    def call(self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None) -> Any:
        """The decoded JSON answer of ``method path``; a refusal raises the `HeraldError` of its code."""
        status, answer = self.call_any_status(method, path, body, query)
        if status >= 400:
            raise self._refusal(status, answer)
        return answer

    def call_any_status(
        self, method: str, path: str, body: Any = None, query: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        """The status and the decoded JSON answer, whatever the status (for `/healthz`, whose 503 still
        carries the stream's position)."""
        url = self.base + path
        if query:
            pairs = {key: value for key, value in query.items() if value is not None}
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self.ssl_context) as response:
                return response.status, self._decode(response.status, response.read())
        except urllib.error.HTTPError as error:
            with error:
                return error.code, self._decode(error.code, error.read())
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise HeraldConnectionError(f"cannot reach {self.base}: {reason}") from error

    @staticmethod
    def _decode(status: int, raw: bytes) -> Any:
        try:
            return json.loads(raw)
        except ValueError:
            text = raw.decode(errors="replace").strip()
            raise HeraldError(f"HTTP {status}, not JSON: {text[:200]!r}", status=status) from None

    @staticmethod
    def _refusal(status: int, answer: Any) -> HeraldError:
        if isinstance(answer, dict) and isinstance(answer.get("code"), str):
            return error_for(answer["code"], str(answer.get("message", "")), status)
        return HeraldError(f"HTTP {status}: {answer!r}", status=status)
