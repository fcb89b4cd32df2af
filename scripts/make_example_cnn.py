#!/usr/bin/env python3
"""Writes examples/cnn.relay: the built-in example model, a small CNN
(conv -> batch_norm -> relu -> max_pool -> conv -> relu -> global_avg_pool
-> dense -> softmax) in TVM's printed Relay form, its weights in the
#[metadata] section as base64 NDArray blobs (TVM's record layout,
runtime/ndarray_blob.h).

Weights are deterministic (a fixed formula, no random generator), so the
file is reproducible byte for byte: python3 scripts/make_example_cnn.py"""
import base64
import math
import struct
import sys

NDARRAY_MAGIC = 0xDD5E40F096B4A13F


def blob(shape, values):
    """One NDArray record: float32, CPU, little-endian."""
    out = struct.pack("<QQiiiBBH", NDARRAY_MAGIC, 0, 1, 0, len(shape), 2, 32, 1)
    out += struct.pack("<%dq" % len(shape), *shape)
    data = struct.pack("<%df" % len(values), *values)
    out += struct.pack("<q", len(data)) + data
    return base64.b64encode(out).decode()


def weights(shape, seed, scale, offset=0.0):
    n = 1
    for d in shape:
        n *= d
    # A fixed, well-spread sequence: scaled sines of an irrational stride.
    return [offset + scale * math.sin(seed * 12.9898 + i * 0.7548776662) for i in range(n)]


consts = [
    ((8, 3, 3, 3), weights((8, 3, 3, 3), 1, 0.4)),       # conv1 weight
    ((8,), weights((8,), 2, 0.2, 1.0)),                  # bn gamma
    ((8,), weights((8,), 3, 0.1)),                       # bn beta
    ((8,), weights((8,), 4, 0.1)),                       # bn moving mean
    ((8,), [abs(v) + 0.5 for v in weights((8,), 5, 0.3)]),  # bn moving var (> 0)
    ((16, 8, 3, 3), weights((16, 8, 3, 3), 6, 0.2)),     # conv2 weight
    ((10, 16), weights((10, 16), 7, 0.5)),               # dense weight
    ((10,), weights((10,), 8, 0.1)),                     # dense bias
]

program = """#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 16, 16), float32]) {
  %0 = nn.conv2d(%data, meta[relay.Constant][0], padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
  %1 = nn.batch_norm(%0, meta[relay.Constant][1], meta[relay.Constant][2], meta[relay.Constant][3], meta[relay.Constant][4]);
  %2 = %1.0;
  %3 = nn.relu(%2);
  %4 = nn.max_pool2d(%3, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %5 = nn.conv2d(%4, meta[relay.Constant][5], padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %6 = nn.relu(%5);
  %7 = nn.global_avg_pool2d(%6);
  %8 = nn.batch_flatten(%7);
  %9 = nn.dense(%8, meta[relay.Constant][6], units=10);
  %10 = nn.bias_add(%9, meta[relay.Constant][7]);
  nn.softmax(%10)
}
"""


def metadata():
    k = len(consts)
    # Node layout of TVM's SaveJSON for Map{"relay.Constant": [c0, c1, ...]}:
    # 0 null, 1 Map, 2 Array, 3 first Constant, 4 VirtualDevice,
    # 5 runtime.String, 6.. the other Constants.
    const_nodes = [3] + list(range(6, 6 + k - 1))
    lines = ['{', '  "root": 1, ', '  "nodes": [', '    {', '      "type_key": ""', '    }, ',
             '    {', '      "type_key": "Map", ', '      "keys": [', '        "relay.Constant"',
             '      ], ', '      "data": [2]', '    }, ', '    {', '      "type_key": "Array", ',
             '      "data": [%s]' % ", ".join(str(i) for i in const_nodes), '    }, ']

    def const_node(i):
        return ['    {', '      "type_key": "relay.Constant", ', '      "attrs": {',
                '        "_checked_type_": "0", ', '        "data": "%d", ' % i,
                '        "span": "0", ', '        "virtual_device_": "4"', '      }', '    }']

    nodes = [const_node(0),
             ['    {', '      "type_key": "VirtualDevice", ', '      "attrs": {',
              '        "device_type_int": "-1", ', '        "memory_scope": "5", ',
              '        "target": "0", ', '        "virtual_device_id": "-1"', '      }', '    }'],
             ['    {', '      "type_key": "runtime.String"', '    }']]
    nodes += [const_node(i) for i in range(1, k)]
    for j, n in enumerate(nodes):
        if j + 1 < len(nodes):
            n = n[:-1] + [n[-1] + ', ']
        lines += n
    lines += ['  ], ', '  "b64ndarrays": [']
    for j, (shape, vals) in enumerate(consts):
        lines.append('    "%s"%s' % (blob(shape, vals), ', ' if j + 1 < k else ''))
    lines += ['  ], ', '  "attrs": {"tvm_version": "0.13.0"}', '}']
    return "\n".join(lines) + "\n"


out = sys.argv[1] if len(sys.argv) > 1 else "examples/cnn.relay"
with open(out, "w") as f:
    f.write(program + "#[metadata]\n" + metadata())
