#!/usr/bin/python3
"""Regenerates the golden .npy files under test/runtime/data/npy/.

Run with Debian's /usr/bin/python3 (it has numpy; the pyenv python on PATH
may not):  /usr/bin/python3 test/runtime/data/make_data.py

The good files are written by numpy itself (np.save / write_array), so the
tests check relayrt's reader and writer against numpy, not against
themselves. The values are hand-chosen and repeated in test_npy.c. The bad
files are numpy output mutated at known places; test_npy.c lists the error
each one must produce.
"""
import os
import numpy as np
from numpy.lib import format as npf

HERE = os.path.dirname(os.path.abspath(__file__))
GOOD = os.path.join(HERE, "npy")
BAD = os.path.join(GOOD, "bad")


def save(name, arr, version=None, allow_pickle=False):
    path = os.path.join(GOOD, name)
    with open(path, "wb") as f:
        if version is None:
            np.save(f, arr, allow_pickle=allow_pickle)
        else:
            npf.write_array(f, arr, version=version, allow_pickle=allow_pickle)
    with open(path, "rb") as f:
        return f.read()


def bad(name, data):
    with open(os.path.join(BAD, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(BAD, exist_ok=True)
    # -- valid files, one per dtype, shapes of rank 0..3 --
    f4 = save("f4_2x3.npy", (np.arange(6, dtype="<f4") * 0.5 - 1).reshape(2, 3))
    save("f8_3.npy", np.array([1.5, -2.25, 1e300], dtype="<f8"))
    save("f2_4.npy", np.array([0.0, 1.0, -2.0, 65504.0], dtype="<f2"))
    save("i1_5.npy", np.array([-128, -1, 0, 1, 127], dtype="i1"))
    save("i2_3.npy", np.array([-32768, 7, 32767], dtype="<i2"))
    save("i4_2x2.npy", np.array([[1, -2], [3, -4]], dtype="<i4"))
    save("i8_2.npy", np.array([-(2**62), 2**62 + 1], dtype="<i8"))
    save("u1_4.npy", np.array([0, 1, 200, 255], dtype="u1"))
    save("u2_2.npy", np.array([1, 65535], dtype="<u2"))
    save("u4_2.npy", np.array([7, 4294967295], dtype="<u4"))
    save("u8_2.npy", np.array([1, 2**64 - 1], dtype="<u8"))
    save("b1_3.npy", np.array([True, False, True]))
    save("i4_scalar.npy", np.array(42, dtype="<i4"))
    save("f4_0x3.npy", np.zeros((0, 3), dtype="<f4"))
    save("i2_2x3x4.npy", np.arange(24, dtype="<i2").reshape(2, 3, 4))
    save("f4_v2.npy", np.array([1.0, 2.0], dtype="<f4"), version=(2, 0))
    save("f4_v3.npy", np.array([3.0, 4.0], dtype="<f4"), version=(3, 0))
    # Strings (issue 19): numpy's fixed-width unicode '<Un' (UTF-32 code
    # units, NUL-padded); the widths are the longest string in code points.
    save("U_3.npy", np.array(["", "h\u00e9llo", "a\U0001F600b"]))
    save("U_2x2.npy", np.array([["ab", "c"], ["", "\u4e2d\u6587"]]))
    u = save("U_surrogate.npy", np.array(["x"]))
    os.remove(os.path.join(GOOD, "U_surrogate.npy"))
    bad("U_surrogate.npy", u[:-4] + (0xD800).to_bytes(4, "little"))
    # A file whose descr says '=' (native order), which numpy also reads.
    with open(os.path.join(GOOD, "f4_native.npy"), "wb") as f:
        f.write(f4.replace(b"'<f4'", b"'=f4'"))

    # -- invalid files --
    fortran = save("f4_fortran.npy", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)))
    os.replace(os.path.join(GOOD, "f4_fortran.npy"), os.path.join(BAD, "fortran.npy"))
    save("obj.npy", np.array([1, "a"], dtype=object), allow_pickle=True)
    os.replace(os.path.join(GOOD, "obj.npy"), os.path.join(BAD, "object.npy"))
    save("be.npy", np.arange(4, dtype=">i4"))
    os.replace(os.path.join(GOOD, "be.npy"), os.path.join(BAD, "big_endian.npy"))
    save("c8.npy", np.array([1 + 2j], dtype="<c8"))
    os.replace(os.path.join(GOOD, "c8.npy"), os.path.join(BAD, "complex.npy"))
    del fortran

    hlen = int.from_bytes(f4[8:10], "little")
    header = f4[10:10 + hlen]
    data = f4[10 + hlen:]

    def with_header(text, version=1):
        text = text.encode("latin1")
        if version == 1:
            return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + data
        return b"\x93NUMPY" + bytes([version, 0]) + len(text).to_bytes(4, "little") + text + data

    bad("bad_magic.npy", b"\x93NUMPZ" + f4[6:])
    bad("truncated_magic.npy", f4[:5])
    bad("truncated_header_len.npy", f4[:9])
    bad("header_len_past_end.npy", f4[:8] + (hlen + 1000).to_bytes(2, "little") + f4[10:])
    bad("truncated_data.npy", f4[:-4])
    bad("trailing_bytes.npy", f4 + b"\0\0\0\0")
    bad("lying_shape.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (100,), }\n"))
    bad("missing_shape.npy", with_header("{'descr': '<f4', 'fortran_order': False, }\n"))
    bad("unclosed_dict.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), \n"))
    bad("version_4.npy", f4[:6] + b"\x04\x00" + f4[8:])
    bad("huge_shape.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }\n"))
    bad("shape_not_tuple.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6), }\n"))
    bad("extra_key.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1, }\n"))
    bad("void_descr.npy", with_header("{'descr': '<V2', 'fortran_order': False, 'shape': (2, 6), }\n"))
    bad("negative_dim.npy", with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 6), }\n"))
    bad("duplicate_key.npy", with_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n"))
    bad("bad_bool.npy", with_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }\n"))
    bad("v2_truncated_len.npy", f4[:6] + b"\x02\x00\x10")
    assert header.endswith(b"\n")


if __name__ == "__main__":
    main()
