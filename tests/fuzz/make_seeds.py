#!/usr/bin/env python3
"""Generate the binary seeds of tests/fuzz/corpus: small inputs.bin files and zip archives.

The XML seeds are copies of tests/data (modelDescription.xml, .ssd, .ssv/.ssm). Run from
anywhere: python3 tests/fuzz/make_seeds.py (rewrites corpus/inputs and corpus/archive).
"""
import io, os, struct, zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def inputs_bin(signals, variables, records, tick_ns=1_000_000, start_ns=0):
    """inputs.bin version 1 (format in rt-core/session/include/rtcosim/session.h)."""
    table = b""
    for unit, name in signals:
        for s in (unit, name):
            table += struct.pack("<H", len(s)) + s.encode()
    for v in variables:
        table += struct.pack("<H", len(v)) + v.encode()
    hdr = 48 + len(table)
    hdr += -hdr % 8
    head = b"RTCINPUT" + struct.pack("<IIIIIIqq", 1, hdr, 40, len(signals), len(variables), 0,
                                     tick_ns, start_ns)
    body = b"".join(struct.pack("<BBHIqdqq", *r) for r in records)
    return (head + table).ljust(hdr, b"\0") + body


def write(sub, name, data):
    d = os.path.join(HERE, "corpus", sub)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def zipped(entries, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data, method)
    return buf.getvalue()


sig = [("io", "x"), ("io", "y")]
var = ["plant.k:min=0:max=10:rate=1:safe=0"]
write("inputs", "samples.bin", inputs_bin(sig, [], [
    (1, 0, 0, 0, 0, 1.5, 0, 0), (1, 0, 0, 1, 1, 2.5, 1_000_000, 1_000_000),
    (1, 0, 0, 0, 3, -1.0, 3_000_000, 3_100_000), (3, 0, 0, 0, 4, 0.0, 0, 0)]))
write("inputs", "commands.bin", inputs_bin(sig, var, [
    (2, 1, 0, 0, 2, 5.0, 2_000_000, 0x7F000001_0000 | 9000), (2, 3, 0, 0, 3, 0.0, 0, 0),
    (2, 5, 0, 4, 3, 0.0, 0, 0), (2, 2, 0, 0, 5, 0.0, 5_000_000, 0),
    (1, 0, 0, 1, 6, 7.0, 6_000_000, 6_000_000), (2, 6, 0, 0, 7, 0.0, 0, 0), (3, 0, 0, 0, 7, 0, 0, 0)]))
write("inputs", "empty.bin", inputs_bin([], [], []))

md = open(os.path.join(HERE, "..", "data", "md", "minimal_fmi2", "modelDescription.xml"), "rb").read()
write("archive", "fmu_layout.zip", zipped([
    ("modelDescription.xml", md), ("binaries/", b""), ("binaries/x86_64-linux/", b""),
    ("resources/data.txt", b"1 2 3\n"), ("documentation/index.html", b"<p>doc</p>")]))
write("archive", "stored.zip", zipped([("a.txt", b"hello\n"), ("dir/b.txt", b"x" * 100)],
                                      zipfile.ZIP_STORED))
write("archive", "dot_dirs.zip", zipped([("./c.txt", b"c"), ("d//e.txt", b"e"), ("f/./g", b"g")]))
write("archive", "empty.zip", zipped([]))
