#!/usr/bin/env python3
"""Writes the seed corpus of the `rdp_segment` fuzz target: RDP segments built from the
layout documented in `crates/ccsim/src/rdp/wire.rs`, independently of its code. Files named
`valid-*` must decode and `invalid-*` must not (`crates/ccsim/tests/rdp_wire_corpus.rs`
checks both); the fuzzer adds its own, unnamed, inputs beside them.

    python3 fuzz/make_seeds.py
"""

import struct
from pathlib import Path

SYN, ACK, EAK, RST, NUL, ACC = 0x80, 0x40, 0x20, 0x10, 0x08, 0x04
OUT = Path(__file__).parent / "corpus" / "rdp_segment"


def checksum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f">{len(b) // 2}H", b))
    while s > 0xFFFF:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def segment(flags, seq, ack, data=b"", syn=None, acc=None, eacks=(), version=2, fix=True):
    var = b""
    if syn is not None:
        var += struct.pack(">HHH", *syn)
    if acc is not None:
        flags |= ACC
        var += struct.pack(">IIIB3x", *acc)
    var += b"".join(struct.pack(">I", e) for e in eacks)
    hlen = 18 + len(var)
    head = struct.pack(">BBHHHIIH", flags | version, hlen // 2, 10000, 80, len(data), seq, ack, 0) + var
    seg = head + data
    if fix:
        c = checksum(seg)
        seg = seg[:16] + struct.pack(">H", c) + seg[18:]
    return seg


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    acc = (12, 6, 150_000, 1)
    seeds = {
        "valid-syn": segment(SYN, 100, 0, syn=(1024, 296, 0x8000)),
        "valid-syn-ack": segment(SYN | ACK, 7000, 100, syn=(256, 1034, 0x8000)),
        "valid-data-acc": segment(ACK, 101, 7000, data=bytes(1000), acc=acc),
        "valid-data-short": segment(ACK, 0xFFFFFFFF, 7000, data=b"hello"),
        "valid-ack": segment(ACK, 7001, 101),
        "valid-eack": segment(ACK | EAK, 7001, 101, eacks=(103, 104, 99, 400)),
        "valid-eack-span": segment(ACK | EAK, 7001, 0xFFFFFFF0, eacks=[(0xFFFFFFF0 + 2 + i) & 0xFFFFFFFF for i in range(64)]),
        "valid-rst": segment(RST, 105, 0),
        "valid-nul": segment(NUL | ACK, 105, 7000),
        "invalid-short": segment(ACK, 1, 2)[:17],
        "invalid-version": segment(ACK, 1, 2, version=1),
        "invalid-checksum": segment(ACK, 1, 2, data=b"x", fix=False)[:16] + b"\x12\x34x",
        "invalid-syn-rst": segment(SYN | RST, 1, 2, syn=(1, 1, 0)),
        "invalid-eack-without-ack": segment(EAK, 1, 2, eacks=(4,)),
        "invalid-data-in-syn": segment(SYN, 1, 0, data=b"d", syn=(1, 1, 0)),
        "invalid-truncated": segment(ACK, 1, 2, data=bytes(100))[:60],
        "invalid-acc-missing": segment(ACK | ACC, 1, 2),
    }
    for name, b in seeds.items():
        (OUT / name).write_bytes(b)


if __name__ == "__main__":
    main()
