#!/usr/bin/env python3
"""Reference implementation of offsetctl's replay digests (format v1).

Written from the format's documentation (the comment in replay/digest.go),
not from the Go code, so that the golden vectors it writes are a second
opinion on the construction. Standard library only.

    python3 replay/testdata/digest_vectors.py > replay/testdata/digest_vectors.json

Audit digest v1: every record is framed (integers big-endian) as
    partition int32, offset int64, timestamp int64 (ms),
    key   int32 length (-1 null) + bytes,
    value int32 length (-1 null) + bytes,
    headers int32 count, then per header
        int32 key length + key bytes, int32 value length (-1 null) + bytes.
H(p) = SHA-256 of partition p's frames in offset order.
digest = SHA-256 over the partitions with records, ascending:
    int32 p || int64 records of p || H(p)
The payload digest frames leave out partition and offset and skip the
offsetctl.source header; the combine step is the same.
"""

import hashlib
import json
import struct
import sys

VERSION = 1
SOURCE_HEADER = b"offsetctl.source"


def i32(n):
    return struct.pack(">i", n)


def i64(n):
    return struct.pack(">q", n)


def sized(b):
    """int32 length (-1 for null) + bytes."""
    if b is None:
        return i32(-1)
    return i32(len(b)) + b


def frame(rec, payload):
    out = b""
    if not payload:
        out += i32(rec["partition"]) + i64(rec["offset"])
    out += i64(rec["timestamp"])
    out += sized(rec["key"]) + sized(rec["value"])
    headers = rec["headers"]
    if payload:
        headers = [h for h in headers if h[0] != SOURCE_HEADER]
    out += i32(len(headers))
    for hk, hv in headers:
        out += i32(len(hk)) + hk + sized(hv)
    return out


def digest(selected, records, payload):
    outer = hashlib.sha256()
    for p in sorted(selected):
        recs = sorted((r for r in records if r["partition"] == p), key=lambda r: r["offset"])
        if not recs:
            continue
        h = hashlib.sha256()
        for r in recs:
            h.update(frame(r, payload))
        outer.update(i32(p) + i64(len(recs)) + h.digest())
    return outer.hexdigest()


def rec(partition, offset, timestamp, key, value, headers=()):
    return {"partition": partition, "offset": offset, "timestamp": timestamp,
            "key": key, "value": value, "headers": list(headers)}


TS = 1796018400000


def base_records():
    """Three selected partitions with records around empty ones."""
    return [
        rec(1, 10, TS, b"k1", b"v1", [(b"h", b"x")]),
        rec(1, 12, TS + 1, b"k2", b"v2"),
        rec(3, 0, TS + 2, b"k3", b"v3", [(b"a", b"1"), (b"b", None)]),
    ]


def cases():
    big = bytes(range(256)) * 4  # 1024 bytes, over the 512-byte inline limit
    yield "no partitions", [], []
    yield "only empty partitions", [0, 1, 2], []
    yield "one record", [0], [rec(0, 0, TS, b"key", b"value")]
    yield "empty partitions first, between and last", [0, 1, 2, 3, 4], base_records()
    yield "partitions given out of order", [4, 3, 2, 1, 0], base_records()
    yield "null key, empty key, tombstone, empty value", [0], [
        rec(0, 0, TS, None, b"v"),
        rec(0, 1, TS, b"", b"v"),
        rec(0, 2, TS, b"k", None),
        rec(0, 3, TS, b"k", b""),
        rec(0, 4, TS, None, None),
    ]
    yield "value at, over and far over the inline limit", [0], [
        rec(0, 0, TS, b"k", big[:512]),
        rec(0, 1, TS, b"k", big[:513]),
        rec(0, 2, TS, b"k", big * 3),
    ]
    yield "key over the inline limit, null value", [2], [
        rec(2, 7, TS, big[:600], None, [(b"h", big[:700])]),
    ]
    yield "headers: null, empty, binary, empty key, repeated key", [0], [
        rec(0, 0, TS, b"k", b"v", [(b"n", None), (b"e", b""), (b"bin", b"\xc3\x28\x00"), (b"", b"x"), (b"n", b"2")]),
    ]
    yield "source header first, middle and alone", [0, 1], [
        rec(0, 0, TS, b"k", b"v", [(SOURCE_HEADER, b"src/0/0"), (b"h", b"1")]),
        rec(0, 1, TS, b"k", b"v", [(b"h", b"1"), (SOURCE_HEADER, b"src/0/1"), (b"i", b"2")]),
        rec(1, 0, TS, b"k", b"v", [(SOURCE_HEADER, b"src/1/0")]),
    ]
    yield "copy of the source-header case at other offsets, no source header", [0, 1], [
        rec(0, 100, TS, b"k", b"v", [(b"h", b"1")]),
        rec(0, 205, TS, b"k", b"v", [(b"h", b"1"), (b"i", b"2")]),
        rec(1, 9, TS, b"k", b"v", []),
    ]
    yield "negative timestamp, big partition and offset", [2147483647], [
        rec(2147483647, 9223372036854775806, -1, b"k", b"v"),
    ]
    # One field changed per case: each must give another digest (and the
    # payload digest changes exactly when a payload field changes).
    one = lambda **kw: [dict(rec(1, 10, TS, b"k", b"v", [(b"h", b"x")]), **kw)]
    yield "field: base", [1, 2], one()
    yield "field: partition", [1, 2], one(partition=2)
    yield "field: offset", [1, 2], one(offset=11)
    yield "field: timestamp", [1, 2], one(timestamp=TS + 1)
    yield "field: key byte", [1, 2], one(key=b"K")
    yield "field: key null", [1, 2], one(key=None)
    yield "field: key empty", [1, 2], one(key=b"")
    yield "field: value byte", [1, 2], one(value=b"V")
    yield "field: value null", [1, 2], one(value=None)
    yield "field: value empty", [1, 2], one(value=b"")
    yield "field: header count", [1, 2], one(headers=[])
    yield "field: header key", [1, 2], one(headers=[(b"H", b"x")])
    yield "field: header value", [1, 2], one(headers=[(b"h", b"X")])
    yield "field: header value null", [1, 2], one(headers=[(b"h", None)])
    yield "field: header value empty", [1, 2], one(headers=[(b"h", b"")])
    yield "field: header added", [1, 2], one(headers=[(b"h", b"x"), (b"h", b"x")])
    yield "field: source header added", [1, 2], one(headers=[(b"h", b"x"), (SOURCE_HEADER, b"t/1/10")])
    yield "field: record count", [1, 2], one() + [rec(1, 11, TS, b"k", b"v", [(b"h", b"x")])]
    # Framing: moving a byte across a length boundary changes the digest.
    yield "field: key/value boundary a", [1], [rec(1, 0, TS, b"ab", b"c")]
    yield "field: key/value boundary b", [1], [rec(1, 0, TS, b"a", b"bc")]


def hexb(b):
    return None if b is None else b.hex()


def main():
    vectors = []
    for name, selected, records in cases():
        vectors.append({
            "name": name,
            "partitions": selected,
            "records": [{
                "partition": r["partition"], "offset": r["offset"], "timestamp": r["timestamp"],
                "key": hexb(r["key"]), "value": hexb(r["value"]),
                "headers": [{"key": hk.hex(), "value": hexb(hv)} for hk, hv in r["headers"]],
            } for r in records],
            "digest": digest(selected, records, False),
            "payload_digest": digest(selected, records, True),
        })
    json.dump({"version": VERSION, "generator": "replay/testdata/digest_vectors.py", "vectors": vectors},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
