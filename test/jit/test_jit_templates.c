/* The kernel templates (jit/templates/) against the reference interpreter:
 * the GEMM (dense, matmul, batch_matmul with transposes and broadcast
 * batches), the conv2d direct / depthwise / im2col / Winograd paths and the softmax
 * rows, on sizes that are not multiples of any tile (M, N, K odd, 1-sized
 * dims), conv with strides, padding, dilation and groups, the 2-d pools,
 * the blocked (NCHW8c / NCHW16c) depthwise conv, and fused epilogues (bias, relu, scale, residual add; the 1x1 paths'
 * vector epilogue, and that it is the one they use). Every case is compiled in
 * one batch; each must pick the template named in the table (so a planner
 * change that silently falls back to the loop nest fails here) and match
 * the interpreter within rel 1e-4 + abs 1e-5 (float32 accumulation, the
 * reference accumulates in double; Winograd: abs 1e-5 + 1e-4 of the
 * output's largest magnitude), run serially and with a 3-task
 * parallel_for (the kernels' task split, run in order on one thread). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_test_util.h"
#include "jit/templates/templates.h"
#include "runtime/mem.h"

typedef struct case_t {
  const char *sig;
  const char *body;
  /* Expected template name prefix; "A|B": A with 8 lanes, B with 16 (a
   * blocked layout whose block is one of the two vector widths). */
  const char *tpl;
} case_t;

#define CONV "nn.conv2d"
#define WCONV "nn.contrib_conv2d_winograd_without_weight_transform"
/* nn.contrib_depthwise_conv2d_NCHWc with its attrs up to the layouts, and
 * the layouts of block 8 and 16. */
#define DWB "nn.contrib_depthwise_conv2d_NCHWc"
#define L8 "data_layout=\"NCHW8c\", kernel_layout=\"OIHW1i8o\", out_layout=\"NCHW8c\")"
#define L16 "data_layout=\"NCHW16c\", kernel_layout=\"OIHW1i16o\", out_layout=\"NCHW16c\")"
#define DWT8 "conv2d_NCHWc.depthwise|loops"
#define DWT16 "loops|conv2d_NCHWc.depthwise"
/* nn.contrib_conv2d_NCHWc, its layouts of block 8 and 16, its template
 * name on 8 and 16 lanes. */
#define CVB "nn.contrib_conv2d_NCHWc"
#define C8 "data_layout=\"NCHW8c\", kernel_layout=\"OIHW8i8o\", out_layout=\"NCHW8c\")"
#define C16 "data_layout=\"NCHW16c\", kernel_layout=\"OIHW16i16o\", out_layout=\"NCHW16c\")"
#define CVT8 "conv2d_NCHWc.direct|loops"
#define CVT16 "loops|conv2d_NCHWc.direct"
#define WT_T(w, m) "nn.contrib_conv2d_winograd_weight_transform(transpose(" w ", axes=[1, 0, 2, 3]), tile_size=" m ")"
static const case_t kCases[] = {
    /* GEMM: dense (one or two rows go to the generic dot products) */
    /* prepacked dense (h2, issue 18): the panels read in place; 1 row,
     * tails in N, M and K, flattened batch dims, a fused epilogue */
    {"%x: Tensor[(1, 40), float32], %w: Tensor[(3, 40, 16), float32]",
     "nn.contrib_dense_pack(%x, %w, units=40)", "dense_pack."},
    {"%x: Tensor[(37, 129), float32], %w: Tensor[(5, 129, 16), float32], %b: Tensor[(65), float32]",
     "nn.relu(add(nn.contrib_dense_pack(%x, %w, units=65), %b))", "dense_pack."},
    {"%x: Tensor[(3, 5, 33), float32], %w: Tensor[(3, 33, 16), float32]",
     "nn.contrib_dense_pack(%x, %w)", "dense_pack."},
    /* panels of 32 (what DensePack packs for the 16-lane templates; the
     * 8-lane ones run them too): row and N tails, a fused epilogue */
    {"%x: Tensor[(13, 40), float32], %w: Tensor[(2, 40, 32), float32], %b: Tensor[(50), float32]",
     "nn.relu(add(nn.contrib_dense_pack(%x, %w, units=50), %b))", "dense_pack."},
    {"%x: Tensor[(1, 40), float32], %w: Tensor[(1, 40, 32), float32]",
     "nn.contrib_dense_pack(%x, %w, units=32)", "dense_pack."},
    {"%x: Tensor[(1, 1), float32], %w: Tensor[(1, 1), float32]", "nn.dense(%x, %w)", "loops"},
    {"%x: Tensor[(3, 1), float32], %w: Tensor[(1, 1), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%x: Tensor[(7, 13), float32], %w: Tensor[(17, 13), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%x: Tensor[(5, 33), float32], %w: Tensor[(50, 33), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%x: Tensor[(2, 3), float32], %w: Tensor[(1, 3), float32]", "nn.dense(%x, %w)", "loops"},
    {"%x: Tensor[(3, 3), float32], %w: Tensor[(1, 3), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%x: Tensor[(13, 64), float32], %w: Tensor[(40, 64), float32], %b: Tensor[(40), float32]",
     "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))", "gemm."},
    {"%x: Tensor[(9, 20), float32], %w: Tensor[(31, 20), float32], %b: Tensor[(9, 31), float32]",
     "multiply(tanh(nn.dense(%x, %w)), %b)", "gemm."},
    {"%x: Tensor[(1, 96), float32], %w: Tensor[(70, 96), float32], %b: Tensor[(70), float32]",
     "add(nn.dense(%x, %w), %b)", "loops"},
    /* one row against a weight strided along K: the template, 1-row tile */
    {"%x: Tensor[(1, 96), float32], %w: Tensor[(96, 70), float32], %b: Tensor[(70), float32]",
     "add(nn.matmul(%x, %w), %b)", "gemm.1x"},
    /* large enough to split over tasks */
    {"%x: Tensor[(130, 24), float32], %w: Tensor[(520, 24), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%x: Tensor[(300, 24), float32], %w: Tensor[(250, 24), float32]", "nn.relu(nn.dense(exp(%x), %w))", "gemm."},
    /* one K block up to K = 2048 (dense.c KC_MAX) */
    {"%x: Tensor[(37, 600), float32], %w: Tensor[(45, 600), float32], %b: Tensor[(45), float32]",
     "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))", "gemm."},
    /* K blocks (K > 2048): partial sums kept in the C block between blocks;
     * K not a multiple of the vector width, M and N not tile multiples */
    {"%x: Tensor[(13, 2101), float32], %w: Tensor[(37, 2101), float32], %b: Tensor[(37), float32]",
     "nn.relu(nn.bias_add(nn.dense(%x, %w), %b))", "gemm."},
    {"%a: Tensor[(4111, 9), float32], %b: Tensor[(4111, 20), float32]", "nn.matmul(%a, %b, transpose_a=True)", "gemm."},
    /* more panels than one L2 block of B (N > 192 at K 300), M not a tile multiple */
    {"%x: Tensor[(13, 300), float32], %w: Tensor[(450, 300), float32]", "nn.dense(%x, %w)", "gemm."},
    {"%a: Tensor[(520, 33), float32], %b: Tensor[(520, 40), float32]", "nn.matmul(%a, %b, transpose_a=True)", "gemm."},
    {"%a: Tensor[(2, 19, 300), float32], %b: Tensor[(2, 300, 21), float32]",
     "nn.batch_matmul(%a, %b, transpose_b=False)", "gemm."},
    /* matmul */
    {"%a: Tensor[(7, 5), float32], %b: Tensor[(5, 19), float32]", "nn.matmul(%a, %b)", "gemm."},
    {"%a: Tensor[(5, 7), float32], %b: Tensor[(19, 5), float32]",
     "nn.matmul(%a, %b, transpose_a=True, transpose_b=True)", "gemm."},
    {"%a: Tensor[(5, 7), float32], %b: Tensor[(5, 19), float32]", "nn.matmul(%a, %b, transpose_a=True)", "gemm."},
    /* dense / matmul of a rank >= 3 data against a 2-d weight: one GEMM
     * over the flattened rows (a transformer's projections); with
     * transpose_a the rows are not one matrix: the loops */
    {"%x: Tensor[(2, 7, 13), float32], %w: Tensor[(17, 13), float32], %b: Tensor[(17), float32]",
     "nn.relu(nn.bias_add(nn.dense(%x, %w), %b, axis=-1))", "gemm."},
    {"%a: Tensor[(3, 1, 5, 9), float32], %b: Tensor[(9, 11), float32]", "add(nn.matmul(%a, %b), 1f)", "gemm."},
    {"%a: Tensor[(1, 37, 20), float32], %b: Tensor[(21, 20), float32]",
     "nn.matmul(%a, %b, transpose_b=True)", "gemm."},
    {"%a: Tensor[(2, 9, 5), float32], %b: Tensor[(9, 4), float32]",
     "nn.matmul(%a, %b, transpose_a=True)", "loops"},
    /* batch_matmul */
    {"%a: Tensor[(3, 7, 5), float32], %b: Tensor[(3, 9, 5), float32]", "nn.batch_matmul(%a, %b, transpose_b=True)", "gemm."},
    {"%a: Tensor[(1, 7, 5), float32], %b: Tensor[(4, 5, 9), float32]",
     "nn.batch_matmul(%a, %b, transpose_b=False)", "gemm."},
    {"%a: Tensor[(5, 6, 7), float32], %b: Tensor[(1, 17, 6), float32]",
     "nn.batch_matmul(%a, %b, transpose_a=True, transpose_b=True)", "gemm."},
    /* conv2d direct (stride 1) */
    {"%x: Tensor[(1, 3, 7, 7), float32], %w: Tensor[(4, 3, 3, 3), float32]",
     CONV "(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])", "conv2d.direct"},
    {"%x: Tensor[(2, 8, 10, 11), float32], %w: Tensor[(13, 8, 3, 3), float32]",
     CONV "(%x, %w, padding=[2, 2, 2, 2], dilation=[2, 2], channels=13, kernel_size=[3, 3])", "conv2d.direct"},
    {"%x: Tensor[(1, 5, 6, 9), float32], %w: Tensor[(7, 5, 2, 4), float32]",
     CONV "(%x, %w, padding=[0, 1, 2, 3], channels=7, kernel_size=[2, 4])", "conv2d.direct"},
    {"%x: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(6, 2, 1, 1), float32]",
     CONV "(%x, %w, groups=2, channels=6, kernel_size=[1, 1])", "conv2d.direct"},
    {"%x: Tensor[(1, 1, 1, 1), float32], %w: Tensor[(1, 1, 1, 1), float32]",
     CONV "(%x, %w, channels=1, kernel_size=[1, 1])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 16, 64, 64), float32], %w: Tensor[(16, 16, 3, 3), float32], %b: Tensor[(16, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]), %b))", "conv2d.direct"},
    /* fused epilogues: scale + shift + relu, residual add */
    {"%x: Tensor[(1, 6, 9, 9), float32], %w: Tensor[(10, 6, 3, 3), float32], %s: Tensor[(10, 1, 1), float32], "
     "%t: Tensor[(10, 1, 1), float32]",
     "nn.relu(add(multiply(" CONV "(%x, %w, padding=[1, 1], channels=10, kernel_size=[3, 3]), %s), %t))",
     "conv2d.direct"},
    {"%x: Tensor[(1, 6, 9, 9), float32], %w: Tensor[(6, 6, 3, 3), float32], %r: Tensor[(1, 6, 9, 9), float32]",
     "nn.relu(add(" CONV "(%x, %w, padding=[1, 1], channels=6, kernel_size=[3, 3]), %r))", "conv2d.direct"},
    {"%x: Tensor[(1, 6, 9, 9), float32], %w: Tensor[(6, 6, 3, 3), float32], %b: Tensor[(6), float32]",
     "nn.bias_add(" CONV "(%x, %w, padding=[1, 1], channels=6, kernel_size=[3, 3]), %b)", "conv2d.direct"},
    /* depthwise */
    {"%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 1, 3, 3), float32]",
     CONV "(%x, %w, padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3])", "conv2d.depthwise"},
    {"%x: Tensor[(2, 5, 13, 17), float32], %w: Tensor[(5, 1, 3, 3), float32], %b: Tensor[(5), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, padding=[1, 1], groups=5, channels=5, kernel_size=[3, 3]), %b))",
     "conv2d.depthwise"},
    /* strided: direct on phase images (stride 2, 3; padded sizes not a
     * multiple of the stride; dilation; a ResNet-like 7x7 stem) */
    {"%x: Tensor[(2, 3, 9, 8), float32], %w: Tensor[(4, 3, 3, 2), float32]",
     CONV "(%x, %w, strides=[2, 3], padding=[1, 0, 2, 1], dilation=[2, 1], channels=4, kernel_size=[3, 2])",
     "conv2d.direct"},
    {"%x: Tensor[(1, 6, 9, 9), float32], %w: Tensor[(10, 6, 3, 3), float32], %b: Tensor[(10), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1], channels=10, kernel_size=[3, 3]), %b))",
     "conv2d.direct"},
    {"%x: Tensor[(1, 3, 23, 21), float32], %w: Tensor[(5, 3, 7, 7), float32], %b: Tensor[(5), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[3, 3, 3, 3], channels=5, kernel_size=[7, 7]), %b))",
     "conv2d.direct"},
    {"%x: Tensor[(1, 40, 9, 9), float32], %w: Tensor[(8, 40, 3, 3), float32], %b: Tensor[(8, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1], channels=8, kernel_size=[3, 3]), %b))",
     "conv2d.direct"},
    /* k x k tiles through the epilogue on the registers (conv2d.c
     * direct_tile_rows: OW >= the lanes, tail ops constant over the
     * pixels): vectors that run past an output row's end stored in two
     * masked parts, two images; then K in blocks (input past 512 KiB,
     * weight past 128 KiB) with the epilogue on the last block */
    {"%x: Tensor[(2, 3, 45, 47), float32], %w: Tensor[(10, 3, 3, 3), float32], %b: Tensor[(10, 1, 1), float32]",
     "clip(add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1], channels=10, kernel_size=[3, 3]), %b), a_min=0f, a_max=6f)",
     "conv2d.direct"},
    {"%x: Tensor[(1, 64, 50, 50), float32], %w: Tensor[(72, 64, 3, 3), float32], %b: Tensor[(72), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, padding=[1, 1], channels=72, kernel_size=[3, 3]), %b))", "conv2d.direct"},
    /* rows of the C block through the vector epilogue, vw columns at a
     * time and a remainder, over phase images copied by vectors (stride 1
     * and 2, two images): a residual add, a scale and shift */
    {"%x: Tensor[(2, 5, 30, 37), float32], %w: Tensor[(9, 5, 3, 3), float32], %r: Tensor[(2, 9, 15, 19), float32]",
     "nn.relu(add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1], channels=9, kernel_size=[3, 3]), %r))",
     "conv2d.direct"},
    {"%x: Tensor[(2, 3, 11, 29), float32], %w: Tensor[(7, 3, 3, 3), float32], %s: Tensor[(7, 1, 1), float32], "
     "%t: Tensor[(7, 1, 1), float32]",
     "add(multiply(" CONV "(%x, %w, padding=[1, 1], channels=7, kernel_size=[3, 3]), %s), %t)", "conv2d.direct"},
    /* the direct template's cache blocking (conv2d.c direct_blocking: an
     * input over 256 KiB): q tiles outer (a 1x1 read in place, a partial
     * last q tile, a residual); past 512 KiB, K blocks adding to the
     * stored tile (a stride-2 3x3 on odd sizes, the last block shorter, a
     * row tail) */
    {"%x: Tensor[(1, 24, 56, 56), float32], %w: Tensor[(40, 24, 1, 1), float32], %r: Tensor[(1, 40, 56, 56), float32]",
     "nn.relu(add(" CONV "(%x, %w, channels=40, kernel_size=[1, 1]), %r))", "conv2d.direct"},
    {"%x: Tensor[(1, 30, 75, 77), float32], %w: Tensor[(130, 30, 3, 3), float32], %b: Tensor[(130), float32]",
     "nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=130, kernel_size=[3, 3]), %b)",
     "conv2d.direct"},
    /* K blocks of whole input channels, each block's phase images copied
     * before its tiles: 31 channels in blocks of 6 (the last one 1), a
     * last q tile narrower than the others (its tiles rerun the blocks
     * on the images already copied) */
    {"%x: Tensor[(1, 31, 75, 77), float32], %w: Tensor[(130, 31, 3, 3), float32], %b: Tensor[(130), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], channels=130, kernel_size=[3, 3]), %b))",
     "conv2d.direct"},
    /* 1x1 kernels reading at least 4x the channels they write on 8+ q
     * tiles split over tasks by pixels (q tiles), not output channels:
     * q tiles outer (input over 256 KiB) with a residual, a clip, a row
     * tail and a partial last q tile; row tiles outer */
    {"%x: Tensor[(1, 96, 29, 27), float32], %w: Tensor[(20, 96, 1, 1), float32], %b: Tensor[(20, 1, 1), float32], %r: Tensor[(1, 20, 29, 27), float32]",
     "clip(add(add(" CONV "(%x, %w, channels=20, kernel_size=[1, 1]), %b), %r), a_min=0f, a_max=6f)", "conv2d.direct"},
    {"%x: Tensor[(1, 64, 24, 24), float32], %w: Tensor[(16, 64, 1, 1), float32], %b: Tensor[(16), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, channels=16, kernel_size=[1, 1]), %b))", "conv2d.direct"},
    /* the vector epilogue on the 1x1 paths (issue 18; epilogue.c): direct
     * with bias + ReLU6 as maximum / minimum on odd sizes (row and q
     * tails, batch 2); K blocks (input over 256 KiB, weight rows over 128
     * KiB: the last block takes the epilogue) with a residual; a tail op
     * the vector epilogue does not take (tanh: the element path); SiLU;
     * im2colT with a residual read along channels and a partial last panel
     * (100 = 6*16 + 4), batch 2; at stride 2 with a 1-d nn.bias_add */
    {"%x: Tensor[(2, 19, 13, 11), float32], %w: Tensor[(37, 19, 1, 1), float32], %b: Tensor[(37, 1, 1), float32]",
     "minimum(maximum(add(" CONV "(%x, %w, channels=37, kernel_size=[1, 1]), %b), 0f), 6f)", "conv2d.direct"},
    {"%x: Tensor[(1, 128, 23, 23), float32], %w: Tensor[(260, 128, 1, 1), float32], %b: Tensor[(260, 1, 1), float32], %r: Tensor[(1, 260, 23, 23), float32]",
     "nn.relu(add(add(" CONV "(%x, %w, channels=260, kernel_size=[1, 1]), %b), %r))", "conv2d.direct"},
    {"%x: Tensor[(1, 10, 9, 9), float32], %w: Tensor[(12, 10, 1, 1), float32]",
     "tanh(" CONV "(%x, %w, channels=12, kernel_size=[1, 1]))", "conv2d.direct"},
    /* 1x1 inputs copied to aligned rows (16 lanes: planes of H*W not a
     * multiple of 16, 64+ output channels; conv2d.c `realign`): 14x14
     * (7 q tiles: split by channel tiles, each task copying all pixels; a
     * narrow last q tile; a row tail), batch 2; 13x13 with a tail op the
     * vector epilogue does not take (the C block); a 14x14 projection of
     * 72 channels with a residual; the 23x23 case above splits by pixels,
     * each task copying its own */
    {"%x: Tensor[(2, 40, 14, 14), float32], %w: Tensor[(150, 40, 1, 1), float32], %b: Tensor[(150, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, channels=150, kernel_size=[1, 1]), %b))", "conv2d.im2colT|conv2d.direct"},
    {"%x: Tensor[(1, 33, 13, 13), float32], %w: Tensor[(130, 33, 1, 1), float32]",
     "tanh(" CONV "(%x, %w, channels=130, kernel_size=[1, 1]))", "conv2d.im2colT|conv2d.direct"},
    {"%x: Tensor[(1, 144, 14, 14), float32], %w: Tensor[(72, 144, 1, 1), float32], %b: Tensor[(72, 1, 1), float32], %r: Tensor[(1, 72, 14, 14), float32]",
     "add(add(" CONV "(%x, %w, channels=72, kernel_size=[1, 1]), %b), %r)", "conv2d.im2colT|conv2d.direct"},
    {"%x: Tensor[(1, 12, 11, 11), float32], %w: Tensor[(20, 12, 1, 1), float32], %b: Tensor[(20, 1, 1), float32]",
     "%0 = add(" CONV "(%x, %w, channels=20, kernel_size=[1, 1]), %b); multiply(%0, sigmoid(%0))", "conv2d.direct"},
    {"%x: Tensor[(2, 40, 7, 7), float32], %w: Tensor[(100, 40, 1, 1), float32], %b: Tensor[(100, 1, 1), float32], %r: Tensor[(2, 100, 7, 7), float32]",
     "nn.relu(add(%r, add(" CONV "(%x, %w, channels=100, kernel_size=[1, 1]), %b)))", "conv2d.im2colT"},
    {"%x: Tensor[(1, 48, 13, 13), float32], %w: Tensor[(72, 48, 1, 1), float32], %b: Tensor[(72), float32]",
     "clip(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], channels=72, kernel_size=[1, 1]), %b), a_min=0f, a_max=6f)",
     "conv2d.im2colT"},
    /* im2colT reading its A in place (dense.c pack_a): a row stride but
     * no column stride, an odd last input row and column left unread,
     * batch 2 (the second image's pixel table offsets) */
    {"%x: Tensor[(2, 20, 11, 10), float32], %w: Tensor[(96, 20, 1, 1), float32]",
     CONV "(%x, %w, strides=[2, 1], channels=96, kernel_size=[1, 1])", "conv2d.im2colT"},
    /* im2colT of 196+ output pixels splits over tasks by pixel tiles
     * (split_rows): 15x14 = 210 rows, a partial last tile, a residual */
    {"%x: Tensor[(1, 24, 30, 28), float32], %w: Tensor[(80, 24, 1, 1), float32], %r: Tensor[(1, 80, 15, 14), float32]",
     "nn.relu(add(" CONV "(%x, %w, strides=[2, 2], channels=80, kernel_size=[1, 1]), %r))", "conv2d.im2colT"},
    /* im2colT with the weight packed in panels of 16 (kernel_layout
     * OIHW16o, passes/dense_pack.c): read in place; a row tail (49 = 8*6
     * + 1), a residual and bias, batch 2; strided and padded, 80 output
     * channels (5 panels); a small image the unpacked rule would run
     * direct (a packed weight takes im2colT whatever the shape) */
    {"%x: Tensor[(2, 40, 7, 7), float32], %w: Tensor[(4, 40, 1, 1, 16), float32], %b: Tensor[(64, 1, 1), float32], %r: Tensor[(2, 64, 7, 7), float32]",
     "nn.relu(add(%r, add(" CONV "(%x, %w, channels=64, kernel_size=[1, 1], kernel_layout=\"OIHW16o\"), %b)))",
     "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 24, 13, 13), float32], %w: Tensor[(5, 24, 1, 1, 16), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[1, 1], kernel_layout=\"OIHW16o\")", "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 3, 5, 5), float32], %w: Tensor[(1, 3, 1, 1, 16), float32]",
     "tanh(" CONV "(%x, %w, kernel_layout=\"OIHW16o\"))", "conv2d.im2colT_pack"},
    /* panels of 32 (OIHW32o: DensePack for the 16-lane templates); at 7x7
     * the 49 rows in 7 tiles of 7 on 16 lanes */
    {"%x: Tensor[(2, 40, 7, 7), float32], %w: Tensor[(2, 40, 1, 1, 32), float32], %b: Tensor[(64, 1, 1), float32], %r: Tensor[(2, 64, 7, 7), float32]",
     "nn.relu(add(%r, add(" CONV "(%x, %w, channels=64, kernel_size=[1, 1], kernel_layout=\"OIHW32o\"), %b)))",
     "conv2d.im2colT_pack.3x32|conv2d.im2colT_pack.7x32"},
    {"%x: Tensor[(1, 24, 13, 13), float32], %w: Tensor[(3, 24, 1, 1, 32), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[1, 1], kernel_layout=\"OIHW32o\")", "conv2d.im2colT_pack"},
    /* 14x14 and a strided 1x1 onto 14x14 in 14-row tiles on 16 lanes
     * (templates.c kRows14MinPx; 3 tasks: 4 / 5 / 5 row tiles) */
    {"%x: Tensor[(1, 40, 14, 14), float32], %w: Tensor[(3, 40, 1, 1, 32), float32], %b: Tensor[(96, 1, 1), float32], %r: Tensor[(1, 96, 14, 14), float32]",
     "nn.relu(add(%r, add(" CONV "(%x, %w, channels=96, kernel_size=[1, 1], kernel_layout=\"OIHW32o\"), %b)))",
     "conv2d.im2colT_pack.3x32|conv2d.im2colT_pack.14x32"},
    {"%x: Tensor[(1, 24, 28, 28), float32], %w: Tensor[(2, 24, 1, 1, 32), float32]",
     "sigmoid(" CONV "(%x, %w, strides=[2, 2], channels=64, kernel_size=[1, 1], kernel_layout=\"OIHW32o\"))",
     "conv2d.im2colT_pack.3x32|conv2d.im2colT_pack.14x32"},
    /* one output pixel (the squeeze-and-excitation convolutions of
     * EfficientNet and MobileNet-v3 on a pooled (N, C, 1, 1)): the swapped
     * GEMM with a 1-row tile where the output channels are a multiple of
     * 16 (ir/op/conv.c), unpacked (48 outputs, bias and SiLU) and in
     * panels of 16 and 32 (batch 2: one row per image); 20 outputs and a
     * grouped one run direct */
    {"%x: Tensor[(1, 200, 1, 1), float32], %w: Tensor[(48, 200, 1, 1), float32], %b: Tensor[(48, 1, 1), float32]",
     "%0 = add(" CONV "(%x, %w, channels=48, kernel_size=[1, 1]), %b); multiply(%0, sigmoid(%0))", "conv2d.im2colT.1x"},
    {"%x: Tensor[(1, 200, 1, 1), float32], %w: Tensor[(20, 200, 1, 1), float32], %b: Tensor[(20, 1, 1), float32]",
     "%0 = add(" CONV "(%x, %w, channels=20, kernel_size=[1, 1]), %b); multiply(%0, sigmoid(%0))", "conv2d.direct"},
    {"%x: Tensor[(1, 32, 1, 1), float32], %w: Tensor[(16, 8, 1, 1), float32]",
     CONV "(%x, %w, groups=4, channels=16, kernel_size=[1, 1])", "conv2d.direct"},
    {"%x: Tensor[(2, 96, 1, 1), float32], %w: Tensor[(3, 96, 1, 1, 16), float32], %b: Tensor[(48, 1, 1), float32]",
     "sigmoid(add(" CONV "(%x, %w, channels=48, kernel_size=[1, 1], kernel_layout=\"OIHW16o\"), %b))",
     "conv2d.im2colT_pack.1x16"},
    {"%x: Tensor[(1, 70, 1, 1), float32], %w: Tensor[(2, 70, 1, 1, 32), float32]",
     CONV "(%x, %w, channels=64, kernel_size=[1, 1], kernel_layout=\"OIHW32o\")", "conv2d.im2colT_pack.1x32"},
    /* k x k kernels in panels (DensePack's 3x3 layers of 7x7 images on
     * 16 lanes): A from a zero-padded copy of the input by tables of
     * pixels and taps; batch 2, bias, residual and relu; stride 2 with
     * asymmetric padding; stride 2 onto 14x14 (196 rows, as ResNet's
     * 28x28 stride-2 layers on either width); a 5x5 kernel with dilation 2; an input computed
     * by a fused producer (A element by element); panels of 8 have a tile
     * only on 8 lanes (else the loops) */
    {"%x: Tensor[(2, 20, 9, 7), float32], %w: Tensor[(3, 20, 3, 3, 16), float32], %b: Tensor[(48, 1, 1), float32], %r: Tensor[(2, 48, 9, 7), float32]",
     "nn.relu(add(%r, add(" CONV "(%x, %w, padding=[1, 1], channels=48, kernel_layout=\"OIHW16o\"), %b)))",
     "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 24, 13, 11), float32], %w: Tensor[(2, 24, 3, 3, 32), float32], %b: Tensor[(64, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 0, 1, 1], kernel_layout=\"OIHW32o\"), %b))",
     "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 24, 28, 28), float32], %w: Tensor[(2, 24, 3, 3, 32), float32], %b: Tensor[(64, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], kernel_layout=\"OIHW32o\"), %b))",
     "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 12, 14, 12), float32], %w: Tensor[(2, 12, 5, 5, 16), float32]",
     CONV "(%x, %w, padding=[2, 2], dilation=[2, 2], kernel_layout=\"OIHW16o\")", "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 16, 7, 7), float32], %w: Tensor[(1, 16, 3, 3, 16), float32]",
     CONV "(tanh(%x), %w, padding=[1, 1], kernel_layout=\"OIHW16o\")", "conv2d.im2colT_pack"},
    {"%x: Tensor[(1, 8, 5, 5), float32], %w: Tensor[(2, 8, 3, 3, 8), float32]",
     CONV "(%x, %w, padding=[1, 1], kernel_layout=\"OIHW8o\")", "conv2d.im2colT|loops"},
    {"%x: Tensor[(1, 8, 11, 11), float32], %w: Tensor[(8, 1, 3, 3), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 7, 13, 10), float32], %w: Tensor[(7, 1, 5, 5), float32]",
     CONV "(%x, %w, strides=[3, 3], padding=[2, 1, 0, 2], groups=7, channels=7, kernel_size=[5, 5])", "conv2d.depthwise"},
    /* depthwise (conv2d.c conv_depthwise): channels taken 2 or 4 at a time
     * on small images with a partial last unit (13 = 3*4 + 1, batch 2),
     * row groups of 4 and a shorter last group (7 = 4 + 3), two output
     * rows, one output row, stride
     * 2 with even and odd left padding and widths whose last vector pair
     * is partly or wholly past the row (37, 19, 5), dilation at stride 2,
     * an input through a fused prologue (copy_phases) */
    {"%x: Tensor[(2, 13, 7, 7), float32], %w: Tensor[(13, 1, 3, 3), float32], %b: Tensor[(13, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, padding=[1, 1], groups=13, channels=13, kernel_size=[3, 3]), %b))",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 10, 14, 14), float32], %w: Tensor[(10, 1, 5, 5), float32]",
     CONV "(%x, %w, padding=[2, 2], groups=10, channels=10, kernel_size=[5, 5])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 5, 2, 6), float32], %w: Tensor[(5, 1, 3, 3), float32]",
     CONV "(%x, %w, padding=[1, 1], groups=5, channels=5, kernel_size=[3, 3])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 6, 1, 30), float32], %w: Tensor[(6, 1, 3, 3), float32]",
     CONV "(%x, %w, padding=[1, 1], groups=6, channels=6, kernel_size=[3, 3])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 5, 15, 37), float32], %w: Tensor[(5, 1, 3, 3), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[0, 0, 1, 1], groups=5, channels=5, kernel_size=[3, 3])",
     "conv2d.depthwise"},
    {"%x: Tensor[(2, 3, 19, 19), float32], %w: Tensor[(3, 1, 5, 5), float32], %b: Tensor[(3), float32]",
     "nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[2, 2], groups=3, channels=3, kernel_size=[5, 5]), %b)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 9, 11, 5), float32], %w: Tensor[(9, 1, 3, 3), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[1, 1, 2, 2], dilation=[2, 2], groups=9, channels=9, kernel_size=[3, 3])",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 4, 12, 20), float32], %w: Tensor[(4, 1, 3, 3), float32]",
     "nn.relu(" CONV "(exp(%x), %w, strides=[2, 2], padding=[1, 1], groups=4, channels=4, kernel_size=[3, 3]))",
     "conv2d.depthwise"},
    /* depthwise chunks by kernel column (dw_plan): 12 rows of one vector
     * with a shorter last group (29 = 2*12 + 5 output rows at stride 2),
     * rows of two vectors (5x5, 14 wide), stride 2 with 5x5 taps, and a
     * dilated kernel whose tap rows are 2 apart */
    {"%x: Tensor[(1, 3, 57, 57), float32], %w: Tensor[(3, 1, 3, 3), float32], %b: Tensor[(3), float32]",
     "clip(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], padding=[1, 1], groups=3, channels=3, kernel_size=[3, 3]), %b), "
     "a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 6, 31, 14), float32], %w: Tensor[(6, 1, 5, 5), float32]",
     CONV "(%x, %w, padding=[2, 2], groups=6, channels=6, kernel_size=[5, 5])", "conv2d.depthwise"},
    {"%x: Tensor[(2, 3, 33, 47), float32], %w: Tensor[(3, 1, 5, 5), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[2, 2], groups=3, channels=3, kernel_size=[5, 5])", "conv2d.depthwise"},
    {"%x: Tensor[(1, 3, 21, 21), float32], %w: Tensor[(3, 1, 3, 3), float32]",
     CONV "(%x, %w, padding=[2, 2], dilation=[2, 2], groups=3, channels=3, kernel_size=[3, 3])", "conv2d.depthwise"},
    /* 15 rows at stride 2 without top padding and a shorter last row
     * group */
    {"%x: Tensor[(1, 5, 31, 20), float32], %w: Tensor[(5, 1, 3, 3), float32]",
     CONV "(%x, %w, strides=[2, 2], padding=[0, 0, 1, 1], groups=5, channels=5, kernel_size=[3, 3])",
     "conv2d.depthwise"},
    /* the expand fused into the depthwise kernel (FuseExpandDepthwise;
     * conv2d.c dw_expand_raw): a 1x1 conv's tail ops applied by the
     * vector epilogue before the phase images are written. Batch 2, a
     * row of whole chunks and a masked last one (21 columns), 12 channels
     * (a unit of 12 slots on small images: 3 groups of 4), ReLU6 on both
     * convolutions; stride 2 with SiLU, a bias_add, 6 channels (slots past
     * the count) and 37 columns; uneven padding at stride 2 (5x5, 3
     * channels, one group); a per-channel scale and a scalar shift with
     * one input channel (k = 1); 14 rows at stride 2 with 5x5 taps and
     * uneven padding, split by rows over tasks; enough work to split over tasks (40
     * channels at 30x30, several units); and an expand whose tail adds a
     * full tensor, which the vector epilogue does not splat: the copy
     * through the element expression (copy_phases) */
    {"%x: Tensor[(2, 5, 9, 21), float32], %w: Tensor[(12, 5, 1, 1), float32], %b: Tensor[(12, 1, 1), float32], "
     "%v: Tensor[(12, 1, 3, 3), float32], %c: Tensor[(12, 1, 1), float32]",
     "clip(add(" CONV "(clip(add(" CONV "(%x, %w, channels=12, kernel_size=[1, 1]), %b), a_min=0f, a_max=6f), %v, "
     "padding=[1, 1], groups=12, channels=12, kernel_size=[3, 3]), %c), a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 7, 10, 37), float32], %w: Tensor[(6, 7, 1, 1), float32], %b: Tensor[(6), float32], "
     "%v: Tensor[(6, 1, 3, 3), float32]",
     "%0 = nn.bias_add(" CONV "(%x, %w, channels=6, kernel_size=[1, 1]), %b); "
     CONV "(multiply(%0, sigmoid(%0)), %v, strides=[2, 2], padding=[1, 1], groups=6, channels=6, kernel_size=[3, 3])",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 4, 13, 18), float32], %w: Tensor[(3, 4, 1, 1), float32], %v: Tensor[(3, 1, 5, 5), float32]",
     CONV "(nn.relu(" CONV "(%x, %w, channels=3, kernel_size=[1, 1])), %v, strides=[2, 2], padding=[1, 2, 2, 1], "
     "groups=3, channels=3, kernel_size=[5, 5])",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 1, 8, 16), float32], %w: Tensor[(9, 1, 1, 1), float32], %s: Tensor[(9, 1, 1), float32], "
     "%v: Tensor[(9, 1, 3, 3), float32]",
     CONV "(add(multiply(" CONV "(%x, %w, channels=9, kernel_size=[1, 1]), %s), 0.5f), %v, padding=[1, 1], groups=9, "
     "channels=9, kernel_size=[3, 3])",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 3, 29, 33), float32], %w: Tensor[(8, 3, 1, 1), float32], %v: Tensor[(8, 1, 5, 5), float32]",
     CONV "(nn.relu(" CONV "(%x, %w, channels=8, kernel_size=[1, 1])), %v, strides=[2, 2], padding=[1, 2, 2, 1], "
     "groups=8, channels=8, kernel_size=[5, 5])",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 16, 30, 30), float32], %w: Tensor[(40, 16, 1, 1), float32], %b: Tensor[(40, 1, 1), float32], "
     "%v: Tensor[(40, 1, 3, 3), float32]",
     "nn.relu(" CONV "(nn.relu(add(" CONV "(%x, %w, channels=40, kernel_size=[1, 1]), %b)), %v, padding=[1, 1], "
     "groups=40, channels=40, kernel_size=[3, 3]))",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 5, 9, 11), float32], %w: Tensor[(6, 5, 1, 1), float32], %r: Tensor[(1, 6, 9, 11), float32], "
     "%v: Tensor[(6, 1, 3, 3), float32]",
     CONV "(add(" CONV "(%x, %w, channels=6, kernel_size=[1, 1]), %r), %v, padding=[1, 1], groups=6, channels=6, "
     "kernel_size=[3, 3])",
     "conv2d.depthwise"},
    /* the depthwise output through the vector epilogue (dw_store_channel:
     * whole vectors over the flattened rows of a channel, so a vector
     * crosses row ends, then the last few pixels by element): a residual
     * read as vectors (117 pixels a channel: 7 or 14 vectors and 5 more),
     * with a bias and ReLU6 after it; and the fused expand's kernel split
     * by rows over tasks (15 rows), each task's vectors starting at its
     * first row, with a residual */
    {"%x: Tensor[(1, 5, 9, 13), float32], %w: Tensor[(5, 1, 3, 3), float32], %r: Tensor[(1, 5, 9, 13), float32], "
     "%b: Tensor[(5, 1, 1), float32]",
     "clip(add(add(" CONV "(%x, %w, padding=[1, 1], groups=5, channels=5, kernel_size=[3, 3]), %r), %b), "
     "a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 4, 15, 19), float32], %w: Tensor[(8, 4, 1, 1), float32], %v: Tensor[(8, 1, 3, 3), float32], "
     "%r: Tensor[(1, 8, 15, 19), float32]",
     "add(" CONV "(nn.relu(" CONV "(%x, %w, channels=8, kernel_size=[1, 1])), %v, padding=[1, 1], groups=8, "
     "channels=8, kernel_size=[3, 3]), %r)",
     "conv2d.depthwise"},
    /* the depthwise output stored straight from the chunks (dw_store_direct:
     * tail ops constant over the pixels): rows of 11 and 21 pixels (the
     * row's last vector partial at both widths: stored in power-of-two
     * pieces), 6 channels taken 4 at a time (the last unit's two spare
     * slots not stored), 3 tasks; the fused expand's kernel the same way,
     * 10 channels in units of 4, split by rows (15 and 16 rows), at
     * stride 1 and 2 */
    {"%x: Tensor[(1, 6, 7, 11), float32], %w: Tensor[(6, 1, 3, 3), float32], %b: Tensor[(6, 1, 1), float32]",
     "clip(add(" CONV "(%x, %w, padding=[1, 1], groups=6, channels=6, kernel_size=[3, 3]), %b), a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 5, 17, 21), float32], %w: Tensor[(5, 1, 3, 3), float32], %b: Tensor[(5, 1, 1), float32]",
     "nn.relu(add(" CONV "(%x, %w, padding=[1, 1], groups=5, channels=5, kernel_size=[3, 3]), %b))",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 4, 15, 19), float32], %w: Tensor[(10, 4, 1, 1), float32], %v: Tensor[(10, 1, 3, 3), float32], "
     "%b: Tensor[(10, 1, 1), float32]",
     "clip(add(" CONV "(nn.relu(" CONV "(%x, %w, channels=10, kernel_size=[1, 1])), %v, padding=[1, 1], groups=10, "
     "channels=10, kernel_size=[3, 3]), %b), a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    {"%x: Tensor[(1, 4, 32, 27), float32], %w: Tensor[(10, 4, 1, 1), float32], %v: Tensor[(10, 1, 3, 3), float32], "
     "%b: Tensor[(10, 1, 1), float32]",
     "nn.relu(add(" CONV "(nn.relu(" CONV "(%x, %w, channels=10, kernel_size=[1, 1])), %v, strides=[2, 2], "
     "padding=[1, 1], groups=10, channels=10, kernel_size=[3, 3]), %b))",
     "conv2d.depthwise"},
    /* the fused expand over an input larger than half of any L2 (1.1
     * MB): bands of rows, each band's units reading its input rows
     * (dw_expand_band), split by rows over tasks, at stride 2 */
    {"%x: Tensor[(1, 20, 120, 120), float32], %w: Tensor[(6, 20, 1, 1), float32], %v: Tensor[(6, 1, 3, 3), float32], "
     "%b: Tensor[(6, 1, 1), float32]",
     "clip(add(" CONV "(nn.relu(" CONV "(%x, %w, channels=6, kernel_size=[1, 1])), %v, strides=[2, 2], "
     "padding=[1, 1], groups=6, channels=6, kernel_size=[3, 3]), %b), a_min=0f, a_max=6f)",
     "conv2d.depthwise"},
    /* blocked depthwise (blocked.c): block 8 takes the template with 8
     * lanes only, block 16 with 16 lanes only (else the generic loops):
     * stride 1 with interior groups, a rest group and border columns;
     * stride 2; 5x5; batch 2 with stride 3 and uneven padding; dilation; a
     * row of border columns only; a fused bias + ReLU6 and a residual add
     * (the vector epilogue), a tail op the vector epilogue lacks (exp: the
     * per-element epilogue); a fused prologue on the data (declined) */
    {"%x: Tensor[(1, 2, 9, 13, 8), float32], %w: Tensor[(2, 1, 3, 3, 1, 8), float32]",
     DWB "(%x, %w, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], " L8, DWT8},
    {"%x: Tensor[(1, 3, 12, 17, 8), float32], %w: Tensor[(3, 1, 3, 3, 1, 8), float32]",
     DWB "(%x, %w, strides=[2, 2], padding=[1, 1], groups=24, channels=24, kernel_size=[3, 3], " L8, DWT8},
    {"%x: Tensor[(1, 1, 10, 20, 8), float32], %w: Tensor[(1, 1, 5, 5, 1, 8), float32]",
     DWB "(%x, %w, padding=[2, 2], groups=8, channels=8, kernel_size=[5, 5], " L8, DWT8},
    {"%x: Tensor[(2, 2, 13, 10, 8), float32], %w: Tensor[(2, 1, 5, 5, 1, 8), float32]",
     DWB "(%x, %w, strides=[3, 3], padding=[2, 1, 0, 2], groups=16, channels=16, kernel_size=[5, 5], " L8, DWT8},
    {"%x: Tensor[(1, 1, 11, 15, 8), float32], %w: Tensor[(1, 1, 3, 3, 1, 8), float32]",
     DWB "(%x, %w, padding=[2, 2], dilation=[2, 2], groups=8, channels=8, kernel_size=[3, 3], " L8, DWT8},
    {"%x: Tensor[(1, 1, 3, 2, 8), float32], %w: Tensor[(1, 1, 3, 3, 1, 8), float32]",
     DWB "(%x, %w, padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3], " L8, DWT8},
    {"%x: Tensor[(1, 2, 14, 14, 8), float32], %w: Tensor[(2, 1, 3, 3, 1, 8), float32], %b: Tensor[(1, 2, 1, 1, 8), float32]",
     "clip(add(" DWB "(%x, %w, strides=[2, 2], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3], " L8
     ", %b), a_min=0f, a_max=6f)", DWT8},
    {"%x: Tensor[(2, 1, 7, 9, 8), float32], %w: Tensor[(1, 1, 3, 3, 1, 8), float32], %r: Tensor[(2, 1, 7, 9, 8), float32]",
     "add(%r, " DWB "(%x, %w, padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3], " L8 ")", DWT8},
    {"%x: Tensor[(1, 1, 6, 11, 8), float32], %w: Tensor[(1, 1, 3, 3, 1, 8), float32]",
     "exp(" DWB "(%x, %w, padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3], " L8 ")", DWT8},
    {"%x: Tensor[(1, 1, 6, 6, 8), float32], %w: Tensor[(1, 1, 3, 3, 1, 8), float32]",
     DWB "(exp(%x), %w, padding=[1, 1], groups=8, channels=8, kernel_size=[3, 3], " L8, "loops"},
    {"%x: Tensor[(1, 2, 7, 11, 16), float32], %w: Tensor[(2, 1, 3, 3, 1, 16), float32], %b: Tensor[(1, 2, 1, 1, 16), float32]",
     "nn.relu(add(" DWB "(%x, %w, strides=[2, 2], padding=[1, 1], groups=32, channels=32, kernel_size=[3, 3], " L16
     ", %b))", DWT16},
    /* blocked convolution (blocked.c, conv2d_NCHWc.direct): block 8
     * takes the template with 8 lanes only, block 16 with 16 lanes only.
     * 1x1 flat with a shorter last row and an odd block count (the tile's
     * block tail), units blocks outer; 1x1 flat with rows outer (a small
     * weight, 17 rows); 3x3 batch 2 with bias + ReLU (the vector
     * epilogue), rows outer; 3x3 stride 2 with a residual add; 5x5 with
     * uneven stride, padding and dilation and exp (the element epilogue);
     * 1x1 stride 2 (not flat); border columns only; a large weight over a
     * small image (blocks outer, tiles of 1-2 pixels with partial sums); a
     * fused prologue on the data (declined) */
    {"%x: Tensor[(1, 3, 7, 10, 8), float32], %w: Tensor[(5, 3, 1, 1, 8, 8), float32]",
     CVB "(%x, %w, channels=40, kernel_size=[1, 1], " C8, CVT8},
    {"%x: Tensor[(1, 1, 20, 20, 8), float32], %w: Tensor[(2, 1, 1, 1, 8, 8), float32]",
     CVB "(%x, %w, channels=16, kernel_size=[1, 1], " C8, CVT8},
    {"%x: Tensor[(2, 2, 9, 13, 8), float32], %w: Tensor[(2, 2, 3, 3, 8, 8), float32], %b: Tensor[(1, 2, 1, 1, 8), float32]",
     "nn.relu(add(" CVB "(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3], " C8 ", %b))", CVT8},
    {"%x: Tensor[(1, 2, 12, 17, 8), float32], %w: Tensor[(3, 2, 3, 3, 8, 8), float32], %r: Tensor[(1, 3, 6, 9, 8), float32]",
     "add(%r, " CVB "(%x, %w, strides=[2, 2], padding=[1, 1], channels=24, kernel_size=[3, 3], " C8 ")", CVT8},
    {"%x: Tensor[(1, 2, 12, 17, 8), float32], %w: Tensor[(2, 2, 5, 5, 8, 8), float32]",
     "exp(" CVB "(%x, %w, strides=[1, 2], padding=[2, 1, 0, 2], dilation=[1, 2], channels=16, kernel_size=[5, 5], " C8 ")",
     CVT8},
    {"%x: Tensor[(1, 2, 11, 11, 8), float32], %w: Tensor[(3, 2, 1, 1, 8, 8), float32]",
     CVB "(%x, %w, strides=[2, 2], channels=24, kernel_size=[1, 1], " C8, CVT8},
    {"%x: Tensor[(1, 1, 3, 2, 8), float32], %w: Tensor[(2, 1, 3, 3, 8, 8), float32]",
     CVB "(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3], " C8, CVT8},
    {"%x: Tensor[(1, 8, 5, 5, 8), float32], %w: Tensor[(8, 8, 3, 3, 8, 8), float32]",
     CVB "(%x, %w, padding=[1, 1], channels=64, kernel_size=[3, 3], " C8, CVT8},
    {"%x: Tensor[(1, 1, 6, 6, 8), float32], %w: Tensor[(1, 1, 3, 3, 8, 8), float32]",
     CVB "(exp(%x), %w, padding=[1, 1], channels=8, kernel_size=[3, 3], " C8, "loops"},
    /* block 16: 1x1 flat with 5 blocks (tiles of 2 and the tail of 1),
     * 3x3 with 5 blocks (tiles of 4 and the tail of 1) and a fused bias
     * + ReLU6, 3 blocks (the tail alone), stride 2 */
    {"%x: Tensor[(1, 2, 9, 9, 16), float32], %w: Tensor[(5, 2, 1, 1, 16, 16), float32], %b: Tensor[(1, 5, 1, 1, 16), float32]",
     "add(" CVB "(%x, %w, channels=80, kernel_size=[1, 1], " C16 ", %b)", CVT16},
    {"%x: Tensor[(1, 1, 8, 10, 16), float32], %w: Tensor[(5, 1, 3, 3, 16, 16), float32], %b: Tensor[(1, 5, 1, 1, 16), float32]",
     "clip(add(" CVB "(%x, %w, padding=[1, 1], channels=80, kernel_size=[3, 3], " C16 ", %b), a_min=0f, a_max=6f)", CVT16},
    {"%x: Tensor[(1, 2, 9, 9, 16), float32], %w: Tensor[(3, 2, 3, 3, 16, 16), float32]",
     CVB "(%x, %w, strides=[2, 2], padding=[1, 1], channels=48, kernel_size=[3, 3], " C16, CVT16},
    /* im2col (1x1 strided) */
    {"%x: Tensor[(1, 8, 7, 7), float32], %w: Tensor[(6, 4, 1, 1), float32]",
     CONV "(%x, %w, strides=[2, 2], groups=2, channels=6, kernel_size=[1, 1])", "conv2d.im2col"},
    {"%x: Tensor[(2, 37, 15, 13), float32], %w: Tensor[(70, 37, 1, 1), float32], %b: Tensor[(70), float32]",
     "nn.relu(nn.bias_add(" CONV "(%x, %w, strides=[2, 2], channels=70, kernel_size=[1, 1]), %b))", "conv2d.im2col"},
    /* Winograd (weight transformed in the kernel): the task split by mr-tile
     * units (64 tiles; 2 images of 15 tiles, a task's units spanning both;
     * F(2x2) on 49 tiles) and, where that leaves a task less work, by
     * output-channel blocks (2 images of 12 tiles); partial tiles and blocks; fused
     * bias, residual add and relu */
    {"%x: Tensor[(1, 8, 30, 30), float32], %w: Tensor[(32, 8, 3, 3), float32], %b: Tensor[(32, 1, 1), float32], %r: Tensor[(1, 32, 30, 30), float32]",
     "nn.relu(add(add(" WCONV "(%x, " WT_T("%w", "4") ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3]), %b), %r))",
     "conv2d.winograd"},
    {"%x: Tensor[(2, 4, 17, 9), float32], %w: Tensor[(32, 4, 3, 3), float32]",
     WCONV "(%x, " WT_T("%w", "4") ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3])", "conv2d.winograd"},
    {"%x: Tensor[(1, 16, 14, 14), float32], %w: Tensor[(32, 16, 3, 3), float32]",
     "nn.relu(" WCONV "(%x, " WT_T("%w", "2") ", tile_size=2, padding=[1, 1], channels=32, kernel_size=[3, 3]))",
     "conv2d.winograd"},
    {"%x: Tensor[(2, 8, 13, 11), float32], %w: Tensor[(32, 8, 3, 3), float32]",
     WCONV "(%x, " WT_T("%w", "4") ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3])", "conv2d.winograd"},
    /* the input copy: by vw x vw transposed blocks from memory (20
     * channels: a partial channel block whatever vw; 19 columns: a
     * partial column block; asymmetric padding), element by element
     * through a fused prologue */
    {"%x: Tensor[(2, 20, 10, 19), float32], %w: Tensor[(32, 20, 3, 3), float32]",
     WCONV "(%x, " WT_T("%w", "4") ", tile_size=4, padding=[1, 2, 0, 1], channels=32, kernel_size=[3, 3])",
     "conv2d.winograd"},
    {"%x: Tensor[(1, 8, 12, 12), float32], %w: Tensor[(32, 8, 3, 3), float32]",
     WCONV "(nn.relu(%x), " WT_T("%w", "4") ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3])",
     "conv2d.winograd"},
    /* a packed weight (alpha, alpha, O/16, I, 16): its panels read in
     * place (a 16-wide tile), in 3 tasks split by channel blocks */
    {"%x: Tensor[(1, 16, 7, 7), float32], %w: Tensor[(6, 6, 3, 16, 16), float32], %b: Tensor[(48, 1, 1), float32]",
     "nn.relu(add(" WCONV "(%x, %w, tile_size=4, padding=[1, 1], channels=48, kernel_size=[3, 3]), %b))",
     "conv2d.winograd"},
    {"%x: Tensor[(2, 8, 17, 15), float32], %w: Tensor[(4, 4, 2, 8, 16), float32]",
     WCONV "(%x, %w, tile_size=2, padding=[1, 1], channels=32, kernel_size=[3, 3])", "conv2d.winograd"},
    /* panels of 32 (Conv2dWinograd for the 16-lane templates) */
    {"%x: Tensor[(1, 16, 9, 7), float32], %w: Tensor[(6, 6, 2, 16, 32), float32], %b: Tensor[(64, 1, 1), float32]",
     "nn.relu(add(" WCONV "(%x, %w, tile_size=4, padding=[1, 1], channels=64, kernel_size=[3, 3]), %b))",
     "conv2d.winograd"},
    {"%x: Tensor[(2, 8, 11, 10), float32], %w: Tensor[(4, 4, 1, 8, 32), float32]",
     WCONV "(%x, %w, tile_size=2, padding=[1, 1], channels=32, kernel_size=[3, 3])", "conv2d.winograd"},
    /* softmax */
    {"%x: Tensor[(3, 10), float32]", "nn.softmax(%x)", "softmax.rows"},
    {"%x: Tensor[(2, 5, 3), float32]", "nn.softmax(%x, axis=1)", "softmax.rows"},
    {"%x: Tensor[(3, 10), float32]", "nn.log_softmax(%x)", "softmax.rows"},
    {"%x: Tensor[(1, 1000), float32]", "nn.softmax(%x)", "softmax.rows"},
    /* 16 lanes, last axis in memory: explicit vectors 4 rows at a time
     * (9 rows: two groups and one row, 37 = 2*16 + 5: a masked tail; 6
     * rows of 48: one group, two rows, no tail) */
    {"%x: Tensor[(9, 37), float32]", "nn.softmax(%x)", "softmax.rows"},
    {"%x: Tensor[(6, 48), float32]", "nn.softmax(%x, axis=-1)", "softmax.rows"},
    {"%x: Tensor[(2, 8), float32], %w: Tensor[(10, 8), float32]", "nn.softmax(nn.dense(%x, %w))", "softmax.rows"},
    /* max_pool2d (pool.c): stride 2 with padding and ceil_mode (ResNet's,
     * SqueezeNet's), stride 1, row tails, a fused prologue (copied element
     * by element) and tail ops (the plane block + epilogue), windows all in
     * padding (-inf), planes split over tasks; dilation and a column stride
     * of 3 lower generically */
    {"%x: Tensor[(2, 5, 23, 45), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
     "pool2d.max"},
    {"%x: Tensor[(1, 4, 111, 111), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], ceil_mode=True)",
     "pool2d.max"},
    {"%x: Tensor[(2, 3, 13, 17), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1])",
     "pool2d.max"},
    {"%x: Tensor[(1, 3, 30, 37), float32]",
     "nn.max_pool2d(nn.relu(%x), pool_size=[3, 2], strides=[3, 2], padding=[2, 1, 0, 2], ceil_mode=True)", "pool2d.max"},
    {"%x: Tensor[(2, 5, 20, 21), float32], %b: Tensor[(5, 1, 1), float32]",
     "nn.relu(add(nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]), %b))", "pool2d.max"},
    {"%x: Tensor[(1, 2, 5, 5), float32]", "nn.max_pool2d(%x, pool_size=[5, 5], strides=[2, 2], padding=[4, 4, 4, 4])",
     "pool2d.max"},
    /* read in place: windows sharing more rows than are carried (9 - 1 >
     * POOL_MAX_CARRIED), 19 taps of a row at stride 2 (10 pairs of loads),
     * the interior vectors' loop between masked edge vectors */
    {"%x: Tensor[(1, 2, 20, 40), float32]", "nn.max_pool2d(%x, pool_size=[9, 3], strides=[1, 1], padding=[4, 1])",
     "pool2d.max"},
    {"%x: Tensor[(1, 2, 9, 70), float32]", "nn.max_pool2d(%x, pool_size=[2, 19], strides=[2, 2], padding=[0, 9])",
     "pool2d.max"},
    {"%x: Tensor[(1, 3, 11, 150), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1])",
     "pool2d.max"},
    /* avg_pool2d (pool.c): DenseNet's 2x2/2, a 3x3/1 counting its padding
     * with tail ops; windows of fewer counted positions lower generically */
    {"%x: Tensor[(1, 6, 28, 28), float32]", "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2])", "pool2d.avg"},
    {"%x: Tensor[(1, 2, 9, 33), float32]", "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[1, 1])", "pool2d.avg"},
    {"%x: Tensor[(2, 3, 13, 19), float32]",
     "nn.relu(nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1], count_include_pad=True))", "pool2d.avg"},
    {"%x: Tensor[(1, 3, 13, 19), float32]", "nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1])", "loops"},
    {"%x: Tensor[(1, 3, 7, 7), float32]", "nn.avg_pool2d(%x, pool_size=[2, 2], strides=[2, 2], ceil_mode=True)", "loops"},
    /* global pools (pool.c): four-vector groups, whole vectors, a masked
     * tail; a fused prologue keeps the generic lowering */
    {"%x: Tensor[(2, 37, 7, 7), float32]", "nn.global_avg_pool2d(%x)", "pool2d.global"},
    {"%x: Tensor[(1, 300, 14, 14), float32], %b: Tensor[(300, 1, 1), float32]",
     "multiply(nn.global_avg_pool2d(%x), %b)", "pool2d.global"},
    {"%x: Tensor[(1, 3, 11, 13), float32]", "nn.global_max_pool2d(%x)", "pool2d.global"},
    {"%x: Tensor[(1, 5, 2, 3), float32]", "nn.global_avg_pool2d(%x)", "pool2d.global"},
    {"%x: Tensor[(1, 5, 6, 6), float32]", "nn.global_avg_pool2d(nn.relu(%x))", "loops"},
    {"%x: Tensor[(1, 2, 9, 9), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], dilation=[2, 2])", "loops"},
    {"%x: Tensor[(1, 2, 9, 9), float32]", "nn.max_pool2d(%x, pool_size=[3, 3], strides=[3, 3])", "loops"},
    /* not templated: generic loop nest (int8, dynamic) */
    {"%x: Tensor[(4, 8), int8], %w: Tensor[(5, 8), int8]", "nn.dense(%x, %w, out_dtype=\"int32\")", "loops"},
};
enum { NCASES = sizeof kCases / sizeof kCases[0] };

/* A parallel_for that runs every task on the caller, in order or (with
 * g_reverse) last to first: the task split is exercised without threads,
 * and a task that writes into another's share of the output, before or
 * after its own, has its stray values left over in one of the two. */
static int32_t g_split_calls; /* parallel_for calls with more than one task */
static bool g_reverse;

static int32_t serial_pf(const rt_kernel_ctx *ctx, rt_kernel_task_fn body, void *closure,
                         int32_t n) {
  int32_t r = 0;
  if (n > 1) ++g_split_calls;
  for (int32_t i = 0; i < n; ++i) r |= body(closure, g_reverse ? n - 1 - i : i, n);
  return r;
}

/* Runs kernel k on ins serially and split over 3 tasks (serial_pf, in
 * order and last to first),
 * comparing its first output with want[0] (rtol 1e-4, atol); prints each
 * failure after `what` ("case 3 (...) [template") and returns how many. */
static int32_t run_serial_and_split(rt_kernel_fn k, int32_t nin, rt_tensor_t **ins, int32_t nout, rt_tensor_t **want,
                                    double atol, const char *what) {
  int32_t failures = 0;
  static const char *const kPass[] = {"serial", "3 tasks", "3 tasks, last first"};
  for (int pass = 0; pass < 3; ++pass) {
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    if (pass > 0) {
      ctx.ctx.num_threads = 3;
      ctx.ctx.parallel_for = serial_pf;
      g_reverse = pass == 2;
    }
    char err[512], why[256];
    rt_tensor_t *got[2];
    if (jt_run_kernel(k, nin, ins, nout, want, got, &ctx.ctx, err) != 0) {
      printf("%s, %s]: kernel failed: %s\n", what, kPass[pass], ctx.error);
      ++failures;
      continue;
    }
    if (!jt_close(got[0], want[0], 1e-4, atol, why)) {
      printf("%s, %s]: %s\n", what, kPass[pass], why);
      ++failures;
    }
    rt_tensor_release(got[0]);
  }
  return failures;
}

/* The template case i must take with vw lanes: its name; of a name "A|B",
 * A with 8 lanes and B with 16. */
static void want_template(int32_t i, int32_t vw, char *buf, size_t n) {
  const char *tpl = kCases[i].tpl, *bar = strchr(tpl, '|');
  int len = (int)strlen(tpl);
  if (bar) {
    /* "A|B": A with 8 lanes, B with 16. */
    len = vw == 16 ? (int)strlen(bar + 1) : (int)(bar - tpl);
    if (vw == 16) tpl = bar + 1;
  }
  snprintf(buf, n, "%.*s", len, tpl);
}

/* Every case on session s: its template name, and its outputs against the
 * interpreter's, serial and in 3 tasks. Returns the failures. */
static int32_t run_cases(rt_module_t *m, rt_ir_expr_t **fns, rt_jit_session_t *s) {
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, NCASES, fns, NULL, 0, NULL, &jm));
  int32_t failures = 0;
  g_split_calls = 0;
  /* The vector width the templates use on this host (16 with AVX-512F). */
  const int32_t vw = rt_jit_session_target(s)->vector_width;
  assert_true(vw == 8 || vw == 16);
  for (int32_t i = 0; i < NCASES; ++i) {
    const char *tpl = rt_jit_module_template(jm, i);
    char want_tpl[64];
    want_template(i, vw, want_tpl, sizeof want_tpl);
    if (strncmp(tpl, want_tpl, strlen(want_tpl)) != 0) {
      printf("case %d (%s): template %s, expected %s\n", i, kCases[i].body, tpl, want_tpl);
      ++failures;
    }
    rt_tensor_t *ins[8], *want[2];
    int32_t nin, nout;
    jt_make_inputs(fns[i], 1, 100 + (uint64_t)i, ins, &nin);
    char name[16];
    snprintf(name, sizeof name, "t%d", i);
    assert_ok(jt_interp(m, name, nin, ins, want, &nout));
    /* Winograd's rounding error scales with the output's largest values,
     * not each element's (as the catalogue's TOL_W): an element that
     * nearly cancels gets the tensor's absolute error. */
    double atol = 1e-5;
    if (strncmp(tpl, "conv2d.winograd", 15) == 0) {
      const float *wv = rt_tensor_data(want[0]);
      double big = 0;
      for (int64_t k = 0; k < rt_tensor_numel(want[0]); ++k) big = fmax(big, fabs((double)wv[k]));
      atol += 1e-4 * big;
    }
    char what[160];
    snprintf(what, sizeof what, "case %d (%.100s) [%s", (int)i, kCases[i].body, tpl);
    failures += run_serial_and_split(rt_jit_module_kernel(jm, i), nin, ins, nout, want, atol, what);
    for (int32_t k = 0; k < nout; ++k) rt_tensor_release(want[k]);
    for (int32_t k = 0; k < nin; ++k) rt_tensor_release(ins[k]);
  }
  printf("# %d template cases on target %s (%d lanes), %d split over tasks\n", NCASES,
         rt_jit_target_name(rt_jit_session_target(s)), (int)vw, (int)g_split_calls);
  rt_jit_module_release(jm);
  return failures;
}


/* The cases parsed into one module, case i as @t<i> (fns[i]). */
static rt_module_t *parse_cases(rt_ir_expr_t **fns) {
  size_t cap = 1 << 16, len = 0;
  char *text = rt_mem_alloc(cap);
  assert_non_null(text);
  len += (size_t)snprintf(text + len, cap - len, "#[version = \"0.0.5\"]\n");
  for (int32_t i = 0; i < NCASES; ++i) {
    len += (size_t)snprintf(text + len, cap - len, "def @t%d(%s) {\n  %s\n}\n", i, kCases[i].sig,
                            kCases[i].body);
  }
  rt_module_t *m = jt_parse(text);
  rt_mem_free(text);
  for (int32_t i = 0; i < NCASES; ++i) {
    char name[16];
    snprintf(name, sizeof name, "t%d", i);
    fns[i] = rt_ir_module_lookup(m, name);
    assert_non_null(fns[i]);
  }
  return m;
}

/* Every case on every target this CPU can run: the 8-lane (avx2, generic)
 * and the 16-lane (avx512) templates alike, whatever the host's default. */
static void test_jit_templates_differential(void **state) {
  (void)state;
  rt_ir_expr_t *fns[NCASES];
  rt_module_t *m = parse_cases(fns);
  int32_t failures = 0, targets = 0;
  const rt_jit_target_kind_t kinds[] = {RT_JIT_TARGET_AVX2, RT_JIT_TARGET_AVX512, RT_JIT_TARGET_GENERIC};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    rt_jit_session_t *s = NULL;
    rt_status_t st = rt_jit_session_create_for(rt_allocator_system(), kinds[k], &s);
    if (st) {
      /* Only a target this CPU lacks may be refused. */
      assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION);
      printf("# skipped target %s: %s\n", rt_jit_target_names[kinds[k]], rt_status_message(st));
      rt_status_free(st);
      continue;
    }
    failures += run_cases(m, fns, s);
    ++targets;
    rt_jit_session_release(s);
  }
  rt_module_release(m);
  assert_true(targets >= 1); /* generic runs on every x86-64 CPU */
  assert_int_equal(failures, 0);
}

/* The 16-lane (AVX-512) templates build on any x86-64 CPU: every case
 * compiled for the avx512 target through lowering, LLVM optimization, code
 * generation and linking by an unchecked session (never run here; on a CPU
 * with AVX-512 test_jit_templates_differential runs them). Each case takes
 * its 16-lane template, whose optimized IR computes on <16 x float> (the
 * explicitly vector ones: all but softmax). */
static void test_jit_templates_16_lanes_build(void **state) {
  (void)state;
  rt_ir_expr_t *fns[NCASES];
  rt_module_t *m = parse_cases(fns);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create_unchecked(rt_allocator_system(), RT_JIT_TARGET_AVX512, &s));
  assert_int_equal(rt_jit_session_target(s)->vector_width, 16);
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, NCASES, fns, NULL, RT_JIT_KEEP_LL | RT_JIT_NO_DISK_CACHE, NULL, &jm));
  int32_t failures = 0;
  for (int32_t i = 0; i < NCASES; ++i) {
    const char *tpl = rt_jit_module_template(jm, i);
    char want[64];
    want_template(i, 16, want, sizeof want);
    if (strncmp(tpl, want, strlen(want)) != 0) {
      printf("case %d (%s): 16-lane template %s, expected %s\n", i, kCases[i].body, tpl, want);
      ++failures;
    }
    /* "loops" is no template; the softmax template is scalar loops that
     * LLVM's vectorizer widens as it sees fit. */
    if (strcmp(want, "loops") == 0 || strncmp(want, "softmax", 7) == 0) continue;
    char *ll = NULL;
    assert_ok(rt_jit_module_ll(jm, i, &ll));
    /* (a depthwise conv with rows of at most 8 outputs takes 8 lanes:
     * test_jit_templates_dw_rows) */
    const char *vec = strcmp(tpl, "conv2d.depthwise.1x32") == 0 ? "<8 x float>" : "<16 x float>";
    if (!strstr(ll, vec)) {
      printf("case %d (%s): no %s in its 16-lane template's IR\n", i, kCases[i].body, vec);
      ++failures;
    }
    rt_mem_free(ll);
  }
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
  assert_int_equal(failures, 0);
}

/* The avx512 target: true where this CPU runs it, else resolved unchecked
 * (its kernels are built, not run). */
static bool resolve_avx512(rt_jit_target_t *t) {
  rt_status_t st = rt_jit_target_resolve(RT_JIT_TARGET_AVX512, t);
  if (st == RT_OK) return true;
  assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION);
  rt_status_free(st);
  assert_ok(rt_jit_target_resolve_unchecked(RT_JIT_TARGET_AVX512, t));
  return false;
}

/* Kernel k of function `name` against the interpreter on seeded inputs,
 * serial and split. */
static void check_kernel(rt_module_t *m, const char *name, const rt_ir_expr_t *fn, rt_kernel_fn k,
                         uint64_t seed, const char *what) {
  rt_tensor_t *ins[4], *want[2];
  int32_t nin, nout;
  jt_make_inputs(fn, 1, seed, ins, &nin);
  assert_ok(jt_interp(m, name, nin, ins, want, &nout));
  assert_int_equal(run_serial_and_split(k, nin, ins, nout, want, 1e-5, what), 0);
  for (int32_t i = 0; i < nout; ++i) rt_tensor_release(want[i]);
  for (int32_t i = 0; i < nin; ++i) rt_tensor_release(ins[i]);
}

/* On 16 lanes a depthwise conv whose output rows have at most 8 pixels
 * computes on 8 lanes (conv2d.depthwise.1x32: a row is one vector either
 * way, 7 of 16 lanes used on a 7x7 image), wider rows on 16
 * (conv2d.depthwise.1x64); checked against the interpreter where this
 * CPU runs AVX-512, else built only. */
static void test_jit_templates_dw_rows(void **state) {
  (void)state;
  static const char kText[] =
      "#[version = \"0.0.5\"]\n"
      "def @a(%x: Tensor[(1, 40, 7, 7), float32], %w: Tensor[(40, 1, 5, 5), float32]) "
      "{ nn.conv2d(%x, %w, padding=[2, 2], groups=40, channels=40, kernel_size=[5, 5]) }\n"
      "def @b(%x: Tensor[(1, 24, 14, 14), float32], %w: Tensor[(24, 1, 3, 3), float32]) "
      "{ nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], groups=24, channels=24, kernel_size=[3, 3]) }\n"
      "def @c(%x: Tensor[(1, 24, 9, 9), float32], %w: Tensor[(24, 1, 3, 3), float32]) "
      "{ nn.conv2d(%x, %w, padding=[1, 1], groups=24, channels=24, kernel_size=[3, 3]) }\n";
  const char *names[] = {"a", "b", "c"};
  const char *want[] = {"conv2d.depthwise.1x32", "conv2d.depthwise.1x32", "conv2d.depthwise.1x64"};
  enum { N = 3 };
  rt_module_t *m = jt_parse(kText);
  rt_ir_expr_t *fns[N];
  for (int32_t i = 0; i < N; ++i) fns[i] = rt_ir_module_lookup(m, names[i]);
  rt_jit_target_t t;
  const bool run = resolve_avx512(&t);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create_target(rt_allocator_system(), &t, &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, N, fns, NULL, RT_JIT_NO_DISK_CACHE, NULL, &jm));
  for (int32_t i = 0; i < N; ++i) {
    assert_string_equal(rt_jit_module_template(jm, i), want[i]);
    char what[32];
    snprintf(what, sizeof what, "@%s", names[i]);
    if (run) check_kernel(m, names[i], fns[i], rt_jit_module_kernel(jm, i), 11 + (uint64_t)i, what);
  }
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* conv2d.direct's blocking for the machine's L2 on 16 lanes
 * (rt_jit_target_t.l2_bytes; direct_blocking): with a 2 MiB L2 a B
 * within half of it keeps the row tiles outer, where the default 256
 * KiB takes the q-outer order (a 1x1 64 -> 64 at 50x50 with bias + ReLU,
 * B 625 KiB; a 3x3 stride-2 16 -> 16 over 130x130 from phase images of
 * 1.1 MB, q-outer at both; a 3x3 16 -> 16 at 60x60, 236 KiB, rows outer
 * at both). A 1x1 256 -> 160 at 24x24 with bias + ReLU (B 576 KiB, a
 * weight of 160 KiB): at 256 KiB the whole B runs in K blocks of 64 and
 * a task's half (split by pixels) in one block, so the serial run and
 * the 3 tasks take the two blockings (conv_direct's `zs`); at 2 MiB both
 * one block. Against the interpreter, serial and split over 3 tasks,
 * where this CPU runs AVX-512; elsewhere built only (unchecked). */
static void test_jit_templates_l2_blocking(void **state) {
  (void)state;
  static const char kText[] =
      "#[version = \"0.0.5\"]\n"
      "def @a(%x: Tensor[(1, 64, 50, 50), float32], %w: Tensor[(64, 64, 1, 1), float32], %b: Tensor[(64, 1, 1), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, channels=64, kernel_size=[1, 1]), %b)) }\n"
      "def @b(%x: Tensor[(1, 16, 130, 130), float32], %w: Tensor[(16, 16, 3, 3), float32]) "
      "{ nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], channels=16, kernel_size=[3, 3]) }\n"
      "def @c(%x: Tensor[(1, 16, 60, 60), float32], %w: Tensor[(16, 16, 3, 3), float32]) "
      "{ nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]) }\n"
      "def @d(%x: Tensor[(1, 256, 24, 24), float32], %w: Tensor[(160, 256, 1, 1), float32], %b: Tensor[(160, 1, 1), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, channels=160, kernel_size=[1, 1]), %b)) }\n";
  const char *names[] = {"a", "b", "c", "d"};
  enum { N = 4 };
  rt_module_t *m = jt_parse(kText);
  rt_ir_expr_t *fns[N];
  for (int32_t i = 0; i < N; ++i) fns[i] = rt_ir_module_lookup(m, names[i]);
  rt_jit_target_t t;
  const bool run = resolve_avx512(&t);
  for (int64_t l2 = 256 << 10; l2 <= (2 << 20); l2 *= 8) {
    t.l2_bytes = l2;
    rt_jit_session_t *s = NULL;
    assert_ok(rt_jit_session_create_target(rt_allocator_system(), &t, &s));
    rt_jit_module_t *jm = NULL;
    assert_ok(rt_jit_build(s, N, fns, NULL, RT_JIT_NO_DISK_CACHE, NULL, &jm));
    for (int32_t i = 0; i < N; ++i) {
      assert_true(strncmp(rt_jit_module_template(jm, i), "conv2d.direct", 13) == 0);
      char what[64];
      snprintf(what, sizeof what, "@%s [L2 %lld KiB", names[i], (long long)(l2 >> 10));
      if (run) check_kernel(m, names[i], fns[i], rt_jit_module_kernel(jm, i), 7 + (uint64_t)i, what);
    }
    rt_jit_module_release(jm);
    rt_jit_session_release(s);
  }
  rt_module_release(m);
}

/* The template's fused epilogue keeps the micro-kernel: the LLVM IR of a
 * templated dense has vector fmas of the host's width and no scalar
 * fallback of the anchor. */
static void test_jit_templates_vector_code(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @f(%x: Tensor[(64, 64), float32], %w: Tensor[(48, 64), float32], %b: Tensor[(48), float32]) "
      "{ nn.relu(nn.bias_add(nn.dense(%x, %w), %b)) }\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "f");
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 1, &fn, NULL, RT_JIT_KEEP_LL, NULL, &jm));
  char *ll = NULL;
  assert_ok(rt_jit_module_ll(jm, 0, &ll));
  /* The host's width: 16-lane fmas with AVX-512F, 8-lane ones otherwise. */
  if (rt_jit_session_target(s)->vector_width == 16) {
    assert_non_null(strstr(ll, "@llvm.fma.v16f32"));
  } else {
    assert_non_null(strstr(ll, "@llvm.fma.v8f32"));
    assert_null(strstr(ll, "@llvm.fma.v16f32"));
  }
  assert_true(strncmp(rt_jit_module_template(jm, 0), "gemm.", 5) == 0);
  rt_mem_free(ll);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* The 1x1 paths apply the tail ops it takes through the vector epilogue
 * (its result is named "vepi" in the unoptimized IR: conv2d.direct's and
 * conv2d.im2colT's; SiLU), and keep the element epilogue for one it does
 * not (tanh); the depthwise kernel's fused expand likewise. */
static void test_jit_templates_vector_epilogue(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @direct(%x: Tensor[(1, 16, 12, 12), float32], %w: Tensor[(24, 16, 1, 1), float32], %b: Tensor[(24, 1, 1), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, channels=24, kernel_size=[1, 1]), %b)) }\n"
      "def @swapped(%x: Tensor[(1, 64, 7, 7), float32], %w: Tensor[(128, 64, 1, 1), float32], %r: Tensor[(1, 128, 7, 7), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, channels=128, kernel_size=[1, 1]), %r)) }\n"
      "def @silu(%x: Tensor[(1, 16, 12, 12), float32], %w: Tensor[(24, 16, 1, 1), float32]) "
      "{ %0 = nn.conv2d(%x, %w, channels=24, kernel_size=[1, 1]); multiply(%0, sigmoid(%0)) }\n"
      "def @other(%x: Tensor[(1, 16, 12, 12), float32], %w: Tensor[(24, 16, 1, 1), float32]) "
      "{ tanh(nn.conv2d(%x, %w, channels=24, kernel_size=[1, 1])) }\n"
      "def @fused(%x: Tensor[(1, 16, 12, 12), float32], %w: Tensor[(24, 16, 1, 1), float32], %v: Tensor[(24, 1, 3, 3), float32]) "
      "{ nn.conv2d(nn.relu(nn.conv2d(%x, %w, channels=24, kernel_size=[1, 1])), %v, padding=[1, 1], groups=24, "
      "channels=24, kernel_size=[3, 3]) }\n"
      "def @unfused(%x: Tensor[(1, 16, 12, 12), float32], %w: Tensor[(24, 16, 1, 1), float32], %v: Tensor[(24, 1, 3, 3), float32]) "
      "{ tanh(nn.conv2d(tanh(nn.conv2d(%x, %w, channels=24, kernel_size=[1, 1])), %v, padding=[1, 1], groups=24, "
      "channels=24, kernel_size=[3, 3])) }\n");
  /* The depthwise kernel computes a fused expand through the vector
   * epilogue ("fused"), or copies its input through the element
   * expression when the epilogue does not take the expand's tail op
   * ("unfused": tanh; its own output through tanh too, which the
   * element epilogue applies, so no vepi at all). */
  const char *names[6] = {"direct", "swapped", "silu", "fused", "other", "unfused"};
  rt_ir_expr_t *fns[6];
  for (int i = 0; i < 6; ++i) fns[i] = rt_ir_module_lookup(m, names[i]);
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 6, fns, NULL, RT_JIT_KEEP_LL | RT_JIT_NO_OPT | RT_JIT_NO_DISK_CACHE, NULL, &jm));
  const char *want_tpl[6] = {"conv2d.direct",    "conv2d.im2colT",  "conv2d.direct",
                             "conv2d.depthwise", "conv2d.direct",   "conv2d.depthwise"};
  for (int i = 0; i < 6; ++i) {
    char *ll = NULL;
    assert_ok(rt_jit_module_ll(jm, i, &ll));
    assert_true(strncmp(rt_jit_module_template(jm, i), want_tpl[i], strlen(want_tpl[i])) == 0);
    if (i < 4) {
      assert_non_null(strstr(ll, "%vepi"));
    } else {
      assert_null(strstr(ll, "%vepi"));
    }
    rt_mem_free(ll);
  }
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* Which kernels are explicit vector code (the session's light pipeline):
 * conv2d.direct / im2colT whose tail ops the vector epilogue takes (a 3x3
 * strided conv's C-block rows included; its unoptimized IR has the
 * "vepi" value), Winograd, depthwise (below); not a direct conv with a
 * tail op it does not take (tanh), one whose input is computed in the
 * kernel (a fused exp), the GEMM (its element epilogue) or the generic
 * loops. */
static void test_jit_templates_explicit_vector(void **state) {
  (void)state;
  rt_module_t *m = jt_parse(
      "#[version = \"0.0.5\"]\n"
      "def @s2(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(24, 16, 3, 3), float32], %b: Tensor[(24, 1, 1), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], channels=24, kernel_size=[3, 3]), %b)) }\n"
      "def @swapped(%x: Tensor[(1, 64, 7, 7), float32], %w: Tensor[(128, 64, 1, 1), float32], %r: Tensor[(1, 128, 7, 7), float32]) "
      "{ nn.relu(add(nn.conv2d(%x, %w, channels=128, kernel_size=[1, 1]), %r)) }\n"
      "def @wino(%x: Tensor[(2, 8, 13, 11), float32], %w: Tensor[(32, 8, 3, 3), float32]) "
      "{ " WCONV "(%x, " WT_T("%w", "4") ", tile_size=4, padding=[1, 1], channels=32, kernel_size=[3, 3]) }\n"
      "def @other(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(24, 16, 3, 3), float32]) "
      "{ tanh(nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], channels=24, kernel_size=[3, 3])) }\n"
      "def @prologue(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(24, 16, 3, 3), float32]) "
      "{ nn.conv2d(exp(%x), %w, strides=[2, 2], padding=[1, 1], channels=24, kernel_size=[3, 3]) }\n"
      "def @dense(%x: Tensor[(64, 64), float32], %w: Tensor[(48, 64), float32]) { nn.relu(nn.dense(%x, %w)) }\n"
      "def @loops(%x: Tensor[(64, 64), float32]) { exp(%x) }\n"
      "def @dw(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(16, 1, 3, 3), float32], %b: Tensor[(16, 1, 1), float32]) "
      "{ clip(add(nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3]), %b), "
      "a_min=0f, a_max=6f) }\n"
      "def @dwexpand(%x: Tensor[(1, 8, 20, 20), float32], %w: Tensor[(16, 8, 1, 1), float32], %v: Tensor[(16, 1, 3, 3), float32]) "
      "{ nn.conv2d(nn.relu(nn.conv2d(%x, %w, channels=16, kernel_size=[1, 1])), %v, padding=[1, 1], groups=16, "
      "channels=16, kernel_size=[3, 3]) }\n"
      "def @dwtanh(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(16, 1, 3, 3), float32]) "
      "{ tanh(nn.conv2d(%x, %w, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3])) }\n"
      "def @dwprologue(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(16, 1, 3, 3), float32]) "
      "{ nn.conv2d(exp(%x), %w, padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3]) }\n"
      "def @dws3(%x: Tensor[(1, 16, 20, 20), float32], %w: Tensor[(16, 1, 3, 3), float32]) "
      "{ nn.conv2d(%x, %w, strides=[3, 3], padding=[1, 1], groups=16, channels=16, kernel_size=[3, 3]) }\n");
  /* Depthwise kernels too (conv2d.c rt_jit_tpl_conv2d_dw_explicit): an
   * input in memory at stride 2 with a bias and ReLU6, a fused expand;
   * not a tail op the vector epilogue lacks (tanh), an input computed in
   * the kernel (copy_phases through its expression) or a column stride of
   * 3 (the same). */
  const char *names[] = {"s2", "swapped", "wino", "other", "prologue", "dense", "loops",
                         "dw", "dwexpand", "dwtanh", "dwprologue", "dws3"};
  const bool want[] = {true, true, true, false, false, false, false, true, true, false, false, false};
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  const rt_jit_target_t *tgt = rt_jit_session_target(s);
  for (size_t i = 0; i < RT_COUNTOF(names); ++i) {
    const rt_ir_expr_t *fn = rt_ir_module_lookup(m, names[i]);
    assert_non_null(fn);
    if (rt_jit_template_explicit_vector(fn, tgt) != want[i]) {
      printf("%s: explicit vector %d, expected %d\n", names[i], !want[i], want[i]);
      fail();
    }
  }
  assert_true(strncmp(rt_jit_template_name(rt_ir_module_lookup(m, "wino"), tgt), "conv2d.winograd", 15) == 0);
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "s2");
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 1, &fn, NULL, RT_JIT_KEEP_LL | RT_JIT_NO_OPT | RT_JIT_NO_DISK_CACHE, NULL, &jm));
  char *ll = NULL;
  assert_ok(rt_jit_module_ll(jm, 0, &ll));
  assert_true(strncmp(rt_jit_module_template(jm, 0), "conv2d.direct", 13) == 0);
  assert_non_null(strstr(ll, "%vepi"));
  rt_mem_free(ll);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* pool2d.max on an input in memory takes one vmaxps per tap, which drops
 * a NaN, and redoes a plane where a tap read one with the maximum that
 * propagates it: NaN in an interior vector of plane 0 (column 50 of
 * 100), in the masked last vector of plane 1 (column 99), none in plane
 * 2; every output against the reference (NaN where it has NaN). */
static void test_jit_templates_pool_nan(void **state) {
  (void)state;
  rt_module_t *m = jt_parse("#[version = \"0.0.5\"]\n"
                            "def @p(%x: Tensor[(1, 3, 20, 100), float32]) "
                            "{ nn.max_pool2d(%x, pool_size=[3, 3], strides=[2, 2], padding=[1, 1]) }\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "p");
  rt_jit_session_t *s = NULL;
  assert_ok(rt_jit_session_create(rt_allocator_system(), &s));
  rt_jit_module_t *jm = NULL;
  assert_ok(rt_jit_build(s, 1, &fn, NULL, RT_JIT_NO_DISK_CACHE, NULL, &jm));
  assert_string_equal(rt_jit_module_template(jm, 0), "pool2d.max");
  rt_tensor_t *ins[1], *want[1], *got[1];
  int32_t nin, nout;
  jt_make_inputs(fn, 1, 7, ins, &nin);
  float *x = rt_tensor_data(ins[0]);
  x[0 * 2000 + 9 * 100 + 50] = NAN;
  x[1 * 2000 + 13 * 100 + 99] = NAN;
  assert_ok(jt_interp(m, "p", nin, ins, want, &nout));
  const float *w = rt_tensor_data(want[0]);
  int32_t nans = 0;
  for (int64_t k = 0; k < rt_tensor_numel(want[0]); ++k) nans += isnan(w[k]);
  assert_int_equal(nans, 2 + 2); /* each NaN's windows: two rows of one column */
  rt_jit_simple_ctx_t ctx;
  rt_jit_simple_ctx_initialize(&ctx);
  char err[512], why[256];
  assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, 0), nin, ins, nout, want, got, &ctx.ctx, err), 0);
  if (!jt_close(got[0], want[0], 0, 0, why)) fail_msg("pool2d.max with NaN: %s", why);
  rt_tensor_release(got[0]);
  rt_tensor_release(want[0]);
  rt_tensor_release(ins[0]);
  rt_jit_module_release(jm);
  rt_jit_session_release(s);
  rt_module_release(m);
}

/* softmax.rows with NaN inputs on every target this CPU runs (16 lanes:
 * the explicit vectors, 4 rows at a time, a masked tail): a row holding a
 * NaN is all NaN, as the interpreter's, one in a full vector and one in
 * the tail's lanes; the other rows are untouched by them. */
static void test_jit_templates_softmax_nan(void **state) {
  (void)state;
  rt_module_t *m = jt_parse("#[version = \"0.0.5\"]\n"
                            "def @p(%x: Tensor[(6, 40), float32]) { nn.softmax(%x) }\n");
  rt_ir_expr_t *fn = rt_ir_module_lookup(m, "p");
  const rt_jit_target_kind_t kinds[] = {RT_JIT_TARGET_AVX2, RT_JIT_TARGET_AVX512, RT_JIT_TARGET_GENERIC};
  int32_t targets = 0;
  for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; ++t) {
    rt_jit_session_t *s = NULL;
    rt_status_t st = rt_jit_session_create_for(rt_allocator_system(), kinds[t], &s);
    if (st) {
      assert_int_equal(rt_status_code(st), RT_STATUS_FAILED_PRECONDITION);
      rt_status_free(st);
      continue;
    }
    ++targets;
    rt_jit_module_t *jm = NULL;
    assert_ok(rt_jit_build(s, 1, &fn, NULL, RT_JIT_NO_DISK_CACHE, NULL, &jm));
    assert_string_equal(rt_jit_module_template(jm, 0), "softmax.rows");
    rt_tensor_t *ins[1], *want[1], *got[1];
    int32_t nin, nout;
    jt_make_inputs(fn, 1, 11, ins, &nin);
    float *x = rt_tensor_data(ins[0]);
    x[1 * 40 + 7] = NAN;
    x[4 * 40 + 37] = NAN;
    assert_ok(jt_interp(m, "p", nin, ins, want, &nout));
    const float *w = rt_tensor_data(want[0]);
    int32_t nans = 0;
    for (int64_t k = 0; k < rt_tensor_numel(want[0]); ++k) nans += isnan(w[k]);
    assert_int_equal(nans, 2 * 40);
    rt_jit_simple_ctx_t ctx;
    rt_jit_simple_ctx_initialize(&ctx);
    char err[512], why[256];
    assert_int_equal(jt_run_kernel(rt_jit_module_kernel(jm, 0), nin, ins, nout, want, got, &ctx.ctx, err), 0);
    if (!jt_close(got[0], want[0], 1e-5, 1e-6, why)) {
      fail_msg("softmax with NaN on %s: %s", rt_jit_target_names[kinds[t]], why);
    }
    rt_tensor_release(got[0]);
    rt_tensor_release(want[0]);
    rt_tensor_release(ins[0]);
    rt_jit_module_release(jm);
    rt_jit_session_release(s);
  }
  assert_true(targets >= 1);
  rt_module_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_jit_templates_pool_nan),
      cmocka_unit_test(test_jit_templates_softmax_nan),
      cmocka_unit_test(test_jit_templates_differential),
      cmocka_unit_test(test_jit_templates_16_lanes_build),
      cmocka_unit_test(test_jit_templates_dw_rows),
      cmocka_unit_test(test_jit_templates_l2_blocking),
      cmocka_unit_test(test_jit_templates_vector_code),
      cmocka_unit_test(test_jit_templates_vector_epilogue),
      cmocka_unit_test(test_jit_templates_explicit_vector),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
