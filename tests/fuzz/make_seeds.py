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

# DCP 1.0 PDUs as they travel over UDP (one per datagram; the golden strings of
# tests/unit/test_dcp_pdu.c), and a few that a slave or master must refuse.
dcp = {
    "stc_register": "01 0000 01 00 b5279485 1a2b 4c3d 8e9f 0a1b2c3d4e5f 01 01 00",
    "stc_deregister": "02 0d00 01 10", "stc_prepare": "03 0800 01 01",
    "stc_configure": "04 0900 01 03", "stc_initialize": "05 0201 01 05",
    "stc_run": "06 0a00 01 05 00f1536500000000", "stc_do_step": "07 3412 01 0b 05000000",
    "stc_send_outputs": "08 0300 01 0d", "stc_stop": "09 0c00 02 0b", "stc_reset": "0a 0e00 01 10",
    "cfg_time_res": "20 0500 01 01000000 64000000", "cfg_steps": "21 0400 01 01000000 0100",
    "cfg_input": "22 0200 01 0100 0000 0200000000000000 09",
    "cfg_output": "23 0300 01 0100 0000 0100000000000000", "cfg_clear": "24 0600 01",
    "cfg_target_nw": "25 0700 01 0100 00 911f 0100007f",
    "cfg_source_nw": "26 0600 01 0100 00 901f 0100007f",
    "cfg_source_nw_can": "26 0100 01 0100 02 0506",
    "cfg_parameter": "27 0900 01 0700000000000000 09 000000000000f83f",
    "cfg_tunable": "28 0a00 01 0200 0100 0807060504030201 06",
    "cfg_param_nw": "29 0b00 01 0200 00 2823 1401a8c0", "cfg_logging": "2a 0c00 01 00 03 02",
    "cfg_scope": "2b 0100 01 0100 00", "inf_state": "80 1400 01", "inf_error": "81 1500 01",
    "inf_log": "82 1600 01 01 0a", "rsp_ack": "b0 0800 01", "rsp_nack": "b1 0500 01 0400 1320",
    "rsp_state_ack": "b2 1400 01 0b", "rsp_error_ack": "b3 1500 01 0210",
    "rsp_log_ack": "b4 1600 01 0500000000000000 03 07", "ntf_state_changed": "e0 01 01",
    "ntf_log": "e1 01 00f1536500000000 02 aabb",
    "dat_input_output": "f0 0001 0100 524ff3f59e68e1bf",
    "dat_string": "f0 0100 0200 03000000 616263 0000803f",
    "dat_parameter": "f1 0200 0200 feffffff",
    "bad_short_register": "01 0000 01 00 b527", "bad_long_stop": "09 0c00 02 0b 00",
    "bad_unknown_type": "7f 0000 01", "bad_string_length": "f0 0100 0200 ffffffff 61",
}
for name, hexs in dcp.items():
    write("dcp", name + ".bin", bytes.fromhex(hexs.replace(" ", "")))
