"""Expected values of test/interp/test_winograd.c: prints its cases.

    /usr/bin/python3 test/interp/gen_winograd.py > /tmp/cases.c

The weight transform is G g G^T with Lavin and Gray's F(2x2, 3x3) and
F(4x4, 3x3) matrices written out below; the convolution's expected output
is the DIRECT convolution of the original weight (gen_cases.conv2d_ref, a
textbook sum over the padded input), not a Winograd computation, so the
reference kernel is checked against the convolution it stands for. Its
transformed-weight input is G g G^T rounded to float32 with the channel
axes swapped to (alpha, alpha, I, O), or packed in panels of P output
channels (alpha, alpha, O/P, I, P) for the `packed` cases."""
import numpy as np

from gen_cases import conv2d_ref, fmt

G = {
    2: np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]]),
    4: np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                 [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]]),
}


def transform(w, m):
    """(O, I, 3, 3) -> (alpha, alpha, O, I), in float64."""
    g = G[m]
    return np.einsum("ay,oiyx,bx->aboi", g, w.astype(np.float64), g)


def main():
    rs = np.random.RandomState(7)
    cases = []
    w = rs.uniform(-1, 1, (2, 1, 3, 3)).astype(np.float32)
    cases.append(("winograd_weight_transform_tile4", "nn.contrib_conv2d_winograd_weight_transform",
                  "tile_size=4", [w], transform(w, 4).astype(np.float32)))
    w = rs.uniform(-1, 1, (1, 2, 3, 3)).astype(np.float32)
    cases.append(("winograd_weight_transform_tile2", "nn.contrib_conv2d_winograd_weight_transform",
                  "tile_size=2", [w], transform(w, 2).astype(np.float32)))
    for name, m, xs, o, pad in [("winograd_conv_tile4_pad1", 4, (1, 2, 6, 7), 3, (1, 1, 1, 1)),
                                ("winograd_conv_tile2_asym_pad", 2, (2, 2, 5, 5), 3, (1, 0, 2, 1)),
                                ("winograd_conv_tile4_no_pad", 4, (1, 3, 9, 6), 2, (0, 0, 0, 0))]:
        x = rs.uniform(-1, 1, xs).astype(np.float32)
        w = rs.uniform(-1, 1, (o, xs[1], 3, 3)).astype(np.float32)
        u = transform(w, m).astype(np.float32).transpose(0, 1, 3, 2).copy()
        want = conv2d_ref(x, w, pad=pad).astype(np.float32)
        attrs = "tile_size=%d; padding=[%d, %d, %d, %d]" % ((m,) + pad)
        cases.append((name, "nn.contrib_conv2d_winograd_without_weight_transform", attrs, [x, u], want))
    # The packed layouts (pack=P): U (alpha, alpha, O, I) as (alpha, alpha,
    # O/P, I, P), U[a, b, o, i] at [a, b, o // P, i, o % P].
    def packed(u, p):
        a, b, o, i = u.shape
        return u.reshape(a, b, o // p, p, i).transpose(0, 1, 2, 4, 3).copy()
    w = rs.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    cases.append(("winograd_weight_transform_tile2_pack2", "nn.contrib_conv2d_winograd_weight_transform",
                  "tile_size=2; pack=2", [w], packed(transform(w, 2), 2).astype(np.float32)))
    x = rs.uniform(-1, 1, (1, 2, 5, 6)).astype(np.float32)
    w = rs.uniform(-1, 1, (4, 2, 3, 3)).astype(np.float32)
    u = packed(transform(w, 2), 2).astype(np.float32)
    cases.append(("winograd_conv_tile2_pad1_packed", "nn.contrib_conv2d_winograd_without_weight_transform",
                  "tile_size=2; padding=[1, 1, 1, 1]", [x, u], conv2d_ref(x, w, pad=(1, 1, 1, 1)).astype(np.float32)))
    # 20 tiles per image: more than the reference kernel's block of 16
    # tiles, so a second, partial block runs (and a second image).
    x = rs.uniform(-1, 1, (2, 1, 9, 7)).astype(np.float32)
    w = rs.uniform(-1, 1, (2, 1, 3, 3)).astype(np.float32)
    u = packed(transform(w, 2), 2).astype(np.float32)
    cases.append(("winograd_conv_tile2_two_tile_blocks", "nn.contrib_conv2d_winograd_without_weight_transform",
                  "tile_size=2; padding=[1, 1, 1, 1]", [x, u], conv2d_ref(x, w, pad=(1, 1, 1, 1)).astype(np.float32)))
    for name, op, attrs, ins, want in cases:
        print("TEST(%s) {" % name)
        print('  CHECK_TOL("%s", "%s", IN(%s),' % (op, attrs.replace('"', '\\"'), ", ".join(fmt(a) for a in ins)))
        print("            OUT(%s), 1e-5, 1e-5);" % fmt(want))
        print("}\n")


if __name__ == "__main__":
    main()
