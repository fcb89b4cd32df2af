#!/usr/bin/python3
"""Compares a transcript with its expected text, numbers with a tolerance.

usage: compare_text.py EXPECTED GOT

Lines must match one for one. Within a line, the text between numbers must
be equal; integers must be equal; numbers with a fraction or an exponent
(values computed by kernels) may differ by rtol 1e-5 + atol 1e-6, because
the JIT's kernels sum in an order that depends on the target's vector
width (8 or 16 lanes), so their last digits are the machine's. Prints a
unified diff of the first differing lines and exits 1 when they differ.
"""
import difflib
import re
import sys

NUM = re.compile(r'([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)')
RTOL, ATOL = 1e-5, 1e-6


def same_line(a, b):
    pa, pb = NUM.split(a), NUM.split(b)
    if len(pa) != len(pb):
        return False
    for i, (x, y) in enumerate(zip(pa, pb)):
        if i % 2 == 0 or x == y:  # text between numbers, or equal numbers
            if x != y:
                return False
            continue
        if not any(c in x + y for c in '.eE'):
            return False  # integers differ
        fx, fy = float(x), float(y)
        if abs(fx - fy) > ATOL + RTOL * max(abs(fx), abs(fy)):
            return False
    return True


def main():
    with open(sys.argv[1], encoding='utf-8', errors='replace') as f:
        want = f.read().splitlines()
    with open(sys.argv[2], encoding='utf-8', errors='replace') as f:
        got = f.read().splitlines()
    if len(want) == len(got) and all(same_line(a, b) for a, b in zip(want, got)):
        return 0
    sys.stdout.writelines(difflib.unified_diff([l + '\n' for l in want], [l + '\n' for l in got],
                                               sys.argv[1], sys.argv[2]))
    return 1


sys.exit(main())
