"""JSON on the wire, encoded once per payload.

A `view` payload is built once and may go to several rooms (and, scaled, through
the message queue to other processes). python-socketio would walk every payload
looking for binary parts and encode it again for each room; a `Encoded` payload
is already JSON text, which the Socket.IO packet encoder (`packet_json`, the
server's `json` module) splices in as it is. Clients receive the same object.
"""
from __future__ import annotations

import json
import re

try:  # orjson is several times faster; plain json gives the same text otherwise
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency, this is a fallback
    orjson = None


def dumps_compact(value) -> str:
    if orjson is not None:
        return orjson.dumps(value).decode()
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def json_bytes(value) -> bytes:
    """`value` as compact JSON, in UTF-8."""
    return orjson.dumps(value) if orjson is not None else dumps_compact(value).encode()


def encoded_parts(values, memo: dict | None = None) -> list | None:
    """Each of `values` as JSON (bytes), to digest and then splice into a `Built` payload
    (`Built.splicing`); None without orjson (nothing is spliced then).

    `memo`, kept across the viewers of one change: a dict value's own values that are the
    very objects an earlier viewer's had (a game's `views` share the public part between
    seats) are encoded once, and spliced into each."""
    if orjson is None:
        return None
    if memo is None:
        return [orjson.dumps(v) for v in values]
    return [_with_shared(v, memo) if type(v) is dict else orjson.dumps(v) for v in values]


def _with_shared(value: dict, memo: dict) -> bytes:
    fields = {}
    for k, v in value.items():
        if type(v) is dict or type(v) is list:
            known = memo.get(id(v))
            if known is None or known[0] is not v:  # (the object, so that its id is not reused meanwhile)
                known = memo[id(v)] = (v, orjson.dumps(v))
            fields[k] = orjson.Fragment(known[1])
        else:
            fields[k] = v
    return orjson.dumps(fields)


class Built(dict):
    """A payload that already knows its text: some of its values were encoded while it
    was built (a view is encoded once to tell whether it changed), and go into its text
    as they are rather than encoded again. It reads as the dict it is; `text` is the
    JSON of exactly that dict, as long as nobody changes it (nobody does: a payload is
    sent as built).

    `splicing`: values under `encoded`'s keys are already JSON. `sharing` also takes the
    fields that every viewer of a change shares (the table's meta) as one JSON object
    encoded once for all of them, and encodes only each viewer's own fields."""

    __slots__ = ("_spliced", "_head", "_own")

    @classmethod
    def splicing(cls, payload: dict, encoded: dict[str, bytes]) -> "Built":
        """`payload`, whose values under `encoded`'s keys are the objects those bytes encode."""
        return cls.sharing(b"{}", {}, payload, encoded)

    @classmethod
    def sharing(cls, head: bytes, shared: dict, own: dict, encoded: dict[str, bytes]) -> "Built":
        """`shared` (encoded as the JSON object `head`) and `own` together, `own`'s values under
        `encoded`'s keys already JSON. The two dicts share no key."""
        built = cls(shared)
        built.update(own)
        built._head, built._own, built._spliced = head, own, encoded
        return built

    def text(self) -> str:
        spliced, head = self._spliced, self._head
        tail = orjson.dumps({k: (orjson.Fragment(spliced[k]) if k in spliced else v) for k, v in self._own.items()})
        if len(head) <= 2 or len(tail) <= 2:  # "{}": one of them is empty
            return (tail if len(head) <= 2 else head).decode()
        return (head[:-1] + b"," + tail[1:]).decode()


class Encoded(str):
    """A payload already encoded as JSON text (a str, so it pickles through the queue
    and python-socketio's binary check passes it over at once)."""

    @classmethod
    def of(cls, value) -> "Encoded":
        return cls(value.text() if isinstance(value, Built) else dumps_compact(value))


class packet_json:
    """The `json` module Socket.IO packets use: an `Encoded` argument goes in as is."""

    @staticmethod
    def dumps(obj, *args, **kwargs):
        if isinstance(obj, list) and any(isinstance(x, Encoded) for x in obj):
            return "[" + ",".join(str(x) if isinstance(x, Encoded) else packet_json._plain(x, args, kwargs)
                                  for x in obj) + "]"
        if isinstance(obj, Encoded):
            return str(obj)
        return packet_json._plain(obj, args, kwargs)

    @staticmethod
    def _plain(obj, args, kwargs) -> str:
        # An event's name, an acknowledgement: compact JSON as python-socketio asks for it
        # (separators=(',', ':')), by orjson at a fraction of json's cost; what orjson
        # declines (a key that is not text, a number too big) goes the way it always went.
        if orjson is not None:
            try:
                return orjson.dumps(obj).decode()
            except TypeError:
                pass
        return json.dumps(obj, *args, **kwargs)

    @staticmethod
    def loads(text, *args, **kwargs):
        try:
            return json.loads(text, *args, **kwargs)
        except RecursionError:
            # A client's payload nested ~1000 deep (it fits in the 64 KB buffer) would
            # raise out of the packet decoder: logged as a crash, and no answer. Read it
            # as the event with no payload, which its handler refuses as bad_request.
            event = _EVENT_NAME.match(text) if isinstance(text, str) else None
            if event is None:
                raise ValueError("The message is nested too deeply.") from None
            return [json.loads(event.group(1)), None]


_EVENT_NAME = re.compile(r'\[\s*("(?:[^"\\]|\\.)*")\s*,')


def http_json_provider(app):
    """Flask's JSON, except that a request body nested too deeply to decode is bad JSON
    (a ValueError, which `get_json` answers as such) and not a RecursionError (a 500)."""
    from flask.json.provider import DefaultJSONProvider

    class Provider(DefaultJSONProvider):
        def loads(self, s, **kwargs):
            try:
                return super().loads(s, **kwargs)
            except RecursionError:
                raise ValueError("The JSON is nested too deeply.") from None

    return Provider(app)


class queue_json:
    """The `json` module of the message queue (scaled set-up): an `Encoded` payload
    crosses to the other processes as {"__encoded__": text} and arrives `Encoded`
    again, so their sockets get the same object and not a string."""

    @staticmethod
    def dumps(message, *args, **kwargs):
        if isinstance(message, dict) and isinstance(message.get("data"), list):
            message = dict(message, data=[{"__encoded__": str(x)} if isinstance(x, Encoded) else x
                                          for x in message["data"]])
        return json.dumps(message, *args, **kwargs)

    @staticmethod
    def loads(text, *args, **kwargs):
        def revive(obj):
            return Encoded(obj["__encoded__"]) if len(obj) == 1 and "__encoded__" in obj else obj
        return json.loads(text, *args, object_hook=revive, **kwargs)
