"""The address students can reach: PUBLIC_URL, else this machine's LAN address.

The QR code must never say `localhost`: a phone would look for the server on
itself. We read interface addresses from the kernel (no packet is sent).
"""
from __future__ import annotations

import fcntl
import ipaddress
import socket
import struct
from urllib.parse import urlsplit

from flask import current_app, request

SIOCGIFADDR = 0x8915


def interface_addresses() -> list[str]:
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


def join_url(code: str) -> str:
    return f"{base_url()}/join/{code}"
