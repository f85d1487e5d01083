"""The address students can reach: PUBLIC_URL, else this machine's LAN address.

The QR code must never say `localhost`: a phone would look for the server on
itself. We read interface addresses from the kernel (no packet is sent).
"""
from __future__ import annotations

import ipaddress
import socket
import struct
from urllib.parse import urlsplit

from flask import current_app, request

SIOCGIFADDR = 0x8915


try:
    import fcntl  # Linux and macOS
except ImportError:  # Windows: no ioctl; ask the resolver for this host's own addresses instead
    fcntl = None


def interface_addresses() -> list[str]:
    if fcntl is None or not hasattr(socket, "if_nameindex"):
        try:
            return sorted({info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)})
        except OSError:
            return []
    found = []
    for _index, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                packed = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
        found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_address() -> str | None:
    candidates = [ipaddress.ip_address(a) for a in interface_addresses()]
    usable = [a for a in candidates if not a.is_loopback and not a.is_link_local]
    usable.sort(key=lambda a: (not a.is_private, str(a)))  # classroom Wi-Fi is a private range
    return str(usable[0]) if usable else None


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url() -> str:
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return configured
    parts = urlsplit(request.host_url)
    host, port = parts.hostname or "", parts.port
    if not _is_loopback(host):
        return request.host_url.rstrip("/")
    lan = lan_address()
    if lan is None:
        return request.host_url.rstrip("/")
    return f"{parts.scheme}://{lan}" + (f":{port}" if port else "")


def client_address() -> str:
    """The client's address as this server sees it (behind a proxy, deploy it with
    werkzeug's ProxyFix so that this is the visitor's and not the proxy's): what every
    per-client limit (demos, logins, wrong codes, seats) counts, through
    app.edge.limits.subject (an IPv6 client by its /64). In a Socket.IO handler it is the
    address of the connection's handshake."""
    return request.remote_addr or "unknown"


def join_url(code: str) -> str:
    return f"{base_url()}/join/{code}"


def where_phones_connect(public_url: str, host: str, port: int, lan: str | None) -> tuple[str, str | None]:
    """(the address to open, None) when phones can reach it, else (an address for this
    computer, the reason phones cannot, with what to do)."""
    if public_url:
        return public_url, None
    if host in ("127.0.0.1", "localhost", "::1"):
        return (f"http://127.0.0.1:{port}",
                f"The server listens only on this computer ({host}), so phones cannot reach it. "
                f"Start it with --host 0.0.0.0 to let phones on the classroom network join.")
    if host in ("0.0.0.0", "::", ""):
        if lan is None:
            return (f"http://127.0.0.1:{port}",
                    "No network address was found, so phones cannot reach this computer. Connect it to the "
                    "classroom Wi-Fi (or set PUBLIC_URL to the address phones use), then start again.")
        return f"http://{lan}:{port}", None
    return f"http://{host}:{port}", None


def terminal_qr(url: str) -> str:
    """The QR code of `url` as text for the terminal (dark modules as blocks)."""
    import io

    import qrcode

    code = qrcode.QRCode(border=2)
    code.add_data(url)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()
