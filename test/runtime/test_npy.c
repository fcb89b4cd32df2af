/* Tests of .npy reading and writing against files numpy wrote
 * (data/make_data.py; the values below are the ones that script chose):
 * every dtype, ranks 0-3, empty shapes, format versions 1.0/2.0/3.0, our
 * writer reproducing numpy's bytes exactly, strided tensors written
 * compact, and a corpus of malformed files each with its error code and
 * message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/tensor_impl.h"
#include "test_util.h"
#include "runtime/mem.h"

static char g_tmpdir[64];

static int setup_tmpdir(void **state) {
  (void)state;
  snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/rt_test_npy_XXXXXX");
  return mkdtemp(g_tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  return rmdir(g_tmpdir);
}

static const char *tmp_path(const char *name) {
  static char buf[256];
  snprintf(buf, sizeof buf, "%s/%s", g_tmpdir, name);
  return buf;
}

static rt_tensor_t *read_golden(const char *name) {
  char rel[128];
  snprintf(rel, sizeof rel, "runtime/data/npy/%s", name);
  rt_tensor_t *t = NULL;
  assert_ok(rt_npy_read_file(rt_allocator_system(), rt_test_path(rel), &t));
  return t;
}

static void check_shape(const rt_tensor_t *t, rt_dtype_t dtype, int32_t rank,
                        const int64_t *shape) {
  assert_true(rt_dtype_equal(rt_tensor_dtype(t), dtype));
  assert_int_equal(rt_tensor_rank(t), rank);
  for (int32_t i = 0; i < rank; ++i) assert_int_equal(rt_tensor_shape(t)[i], shape[i]);
  assert_true(rt_tensor_is_compact(t));
}

static void test_npy_read_float32(void **state) {
  (void)state;
  rt_tensor_t *t = read_golden("f4_2x3.npy");
  check_shape(t, RT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
  const float expect[] = {-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f};
  assert_memory_equal(rt_tensor_data(t), expect, sizeof expect);
  rt_tensor_release(t);
  t = read_golden("f4_native.npy");
  check_shape(t, RT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
  assert_memory_equal(rt_tensor_data(t), expect, sizeof expect);
  rt_tensor_release(t);
}

static void test_npy_read_every_dtype(void **state) {
  (void)state;
  rt_tensor_t *t;

  t = read_golden("f8_3.npy");
  check_shape(t, RT_DTYPE_FLOAT64, 1, (int64_t[]){3});
  const double f8[] = {1.5, -2.25, 1e300};
  assert_memory_equal(rt_tensor_data(t), f8, sizeof f8);
  rt_tensor_release(t);

  t = read_golden("f2_4.npy");
  check_shape(t, RT_DTYPE_FLOAT16, 1, (int64_t[]){4});
  const uint16_t f2[] = {0x0000, 0x3C00, 0xC000, 0x7BFF}; /* 0, 1, -2, 65504 */
  assert_memory_equal(rt_tensor_data(t), f2, sizeof f2);
  rt_tensor_release(t);

  t = read_golden("i1_5.npy");
  check_shape(t, RT_DTYPE_INT8, 1, (int64_t[]){5});
  const int8_t i1[] = {-128, -1, 0, 1, 127};
  assert_memory_equal(rt_tensor_data(t), i1, sizeof i1);
  rt_tensor_release(t);

  t = read_golden("i2_3.npy");
  check_shape(t, RT_DTYPE_INT16, 1, (int64_t[]){3});
  const int16_t i2[] = {-32768, 7, 32767};
  assert_memory_equal(rt_tensor_data(t), i2, sizeof i2);
  rt_tensor_release(t);

  t = read_golden("i4_2x2.npy");
  check_shape(t, RT_DTYPE_INT32, 2, (int64_t[]){2, 2});
  const int32_t i4[] = {1, -2, 3, -4};
  assert_memory_equal(rt_tensor_data(t), i4, sizeof i4);
  rt_tensor_release(t);

  t = read_golden("i8_2.npy");
  check_shape(t, RT_DTYPE_INT64, 1, (int64_t[]){2});
  const int64_t i8[] = {-(INT64_C(1) << 62), (INT64_C(1) << 62) + 1};
  assert_memory_equal(rt_tensor_data(t), i8, sizeof i8);
  rt_tensor_release(t);

  t = read_golden("u1_4.npy");
  check_shape(t, RT_DTYPE_UINT8, 1, (int64_t[]){4});
  const uint8_t u1[] = {0, 1, 200, 255};
  assert_memory_equal(rt_tensor_data(t), u1, sizeof u1);
  rt_tensor_release(t);

  t = read_golden("u2_2.npy");
  check_shape(t, RT_DTYPE_UINT16, 1, (int64_t[]){2});
  const uint16_t u2[] = {1, 65535};
  assert_memory_equal(rt_tensor_data(t), u2, sizeof u2);
  rt_tensor_release(t);

  t = read_golden("u4_2.npy");
  check_shape(t, RT_DTYPE_UINT32, 1, (int64_t[]){2});
  const uint32_t u4[] = {7, 4294967295u};
  assert_memory_equal(rt_tensor_data(t), u4, sizeof u4);
  rt_tensor_release(t);

  t = read_golden("u8_2.npy");
  check_shape(t, RT_DTYPE_UINT64, 1, (int64_t[]){2});
  const uint64_t u8[] = {1, UINT64_MAX};
  assert_memory_equal(rt_tensor_data(t), u8, sizeof u8);
  rt_tensor_release(t);

  t = read_golden("b1_3.npy");
  check_shape(t, RT_DTYPE_BOOL, 1, (int64_t[]){3});
  const uint8_t b1[] = {1, 0, 1};
  assert_memory_equal(rt_tensor_data(t), b1, sizeof b1);
  rt_tensor_release(t);
}

static void test_npy_read_scalar_empty_rank3(void **state) {
  (void)state;
  rt_tensor_t *t = read_golden("i4_scalar.npy");
  check_shape(t, RT_DTYPE_INT32, 0, NULL);
  assert_int_equal(rt_tensor_numel(t), 1);
  assert_int_equal(*(int32_t *)rt_tensor_data(t), 42);
  rt_tensor_release(t);

  t = read_golden("f4_0x3.npy");
  check_shape(t, RT_DTYPE_FLOAT32, 2, (int64_t[]){0, 3});
  assert_int_equal(rt_tensor_numel(t), 0);
  rt_tensor_release(t);

  t = read_golden("i2_2x3x4.npy");
  check_shape(t, RT_DTYPE_INT16, 3, (int64_t[]){2, 3, 4});
  const int16_t *d = rt_tensor_data(t);
  for (int i = 0; i < 24; ++i) assert_int_equal(d[i], i);
  rt_tensor_release(t);
}

static void test_npy_read_versions_2_and_3(void **state) {
  (void)state;
  rt_tensor_t *t = read_golden("f4_v2.npy");
  const float v2[] = {1.0f, 2.0f};
  check_shape(t, RT_DTYPE_FLOAT32, 1, (int64_t[]){2});
  assert_memory_equal(rt_tensor_data(t), v2, sizeof v2);
  rt_tensor_release(t);
  t = read_golden("f4_v3.npy");
  const float v3[] = {3.0f, 4.0f};
  check_shape(t, RT_DTYPE_FLOAT32, 1, (int64_t[]){2});
  assert_memory_equal(rt_tensor_data(t), v3, sizeof v3);
  rt_tensor_release(t);
}

/* Our writer must reproduce numpy's np.save output byte for byte. */
static void test_npy_write_matches_numpy(void **state) {
  (void)state;
  static const char *names[] = {
      "f4_2x3.npy", "f8_3.npy", "f2_4.npy", "i1_5.npy", "i2_3.npy", "i4_2x2.npy",
      "i8_2.npy", "u1_4.npy", "u2_2.npy", "u4_2.npy", "u8_2.npy", "b1_3.npy",
      "i4_scalar.npy", "f4_0x3.npy", "i2_2x3x4.npy"};
  for (size_t i = 0; i < RT_COUNTOF(names); ++i) {
    char rel[128];
    snprintf(rel, sizeof rel, "runtime/data/npy/%s", names[i]);
    size_t golden_size = 0;
    char *golden = rt_test_read_file(rt_test_path(rel), &golden_size);
    rt_tensor_t *t = read_golden(names[i]);
    const char *out = tmp_path(names[i]);
    assert_ok(rt_npy_write_file(t, out));
    size_t size = 0;
    char *written = rt_test_read_file(out, &size);
    if (size != golden_size || memcmp(written, golden, size) != 0) {
      print_error("%s: written bytes differ from numpy's\n", names[i]);
      fail();
    }
    unlink(out);
    rt_mem_free(written);
    rt_mem_free(golden);
    rt_tensor_release(t);
  }
}

/* Strings: numpy's '<Un' files read as string tensors in UTF-8 (the
 * bytes below are the UTF-8 of the script's strings), and written back
 * byte for byte as numpy wrote them. */
static void check_string(const rt_tensor_t *t, int64_t i, const char *want) {
  const rt_string_t *e = (const rt_string_t *)rt_tensor_data(t) + i;
  assert_int_equal(e->size, strlen(want));
  if (e->size) assert_memory_equal(e->data, want, strlen(want));
}

static void test_npy_strings(void **state) {
  (void)state;
  rt_tensor_t *t = read_golden("U_3.npy");
  const int64_t s3[] = {3};
  check_shape(t, RT_DTYPE_STRING, 1, s3);
  check_string(t, 0, "");
  check_string(t, 1, "h\xc3\xa9llo");
  check_string(t, 2, "a\xf0\x9f\x98\x80" "b");
  rt_tensor_release(t);
  t = read_golden("U_2x2.npy");
  const int64_t s22[] = {2, 2};
  check_shape(t, RT_DTYPE_STRING, 2, s22);
  check_string(t, 0, "ab");
  check_string(t, 1, "c");
  check_string(t, 2, "");
  check_string(t, 3, "\xe4\xb8\xad\xe6\x96\x87");
  rt_tensor_release(t);
  static const char *names[] = {"U_3.npy", "U_2x2.npy"};
  for (size_t i = 0; i < RT_COUNTOF(names); ++i) {
    char rel[128];
    snprintf(rel, sizeof rel, "runtime/data/npy/%s", names[i]);
    size_t golden_size = 0;
    char *golden = rt_test_read_file(rt_test_path(rel), &golden_size);
    t = read_golden(names[i]);
    const char *out = tmp_path(names[i]);
    assert_ok(rt_npy_write_file(t, out));
    size_t size = 0;
    char *written = rt_test_read_file(out, &size);
    assert_int_equal(size, golden_size);
    assert_memory_equal(written, golden, size);
    unlink(out);
    rt_mem_free(written);
    rt_mem_free(golden);
    rt_tensor_release(t);
  }
  /* Bytes that are not UTF-8 cannot be written. */
  const int64_t one = 1;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_STRING, 1, &one, &t));
  assert_ok(rt_tensor_set_string(t, 0, "\xff", 1));
  assert_status(rt_npy_write_file(t, tmp_path("bad.npy")), INVALID_ARGUMENT, "not valid UTF-8");
  rt_tensor_release(t);
}

static void test_npy_write_strided_compacts(void **state) {
  (void)state;
  /* A transposed DLPack view of a row-major (2, 3) int32 array. */
  int32_t data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {3, 2}, strides[] = {1, 3};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = RT_DTYPE_INT32;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  rt_tensor_t *t = NULL, *back = NULL;
  assert_ok(rt_tensor_from_dlpack(&m, &t));
  const char *out = tmp_path("strided.npy");
  assert_ok(rt_npy_write_file(t, out));
  assert_ok(rt_npy_read_file(rt_allocator_system(), out, &back));
  check_shape(back, RT_DTYPE_INT32, 2, shape);
  const int32_t expect[] = {0, 3, 1, 4, 2, 5};
  assert_memory_equal(rt_tensor_data(back), expect, sizeof expect);
  unlink(out);
  rt_tensor_release(t);
  rt_tensor_release(back);
}

static void test_npy_write_unsupported(void **state) {
  (void)state;
  int64_t shape[] = {2};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_BFLOAT16, 1, shape, &t));
  assert_status(rt_npy_write_file(t, tmp_path("bf16.npy")), UNIMPLEMENTED,
                "bfloat16 has no numpy descr");
  rt_tensor_release(t);
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 4}, 1,
                             shape, &t));
  assert_status(rt_npy_write_file(t, tmp_path("vec.npy")), UNIMPLEMENTED, "float32x4");
  assert_status(rt_npy_write_file(t, "/nonexistent-dir/x.npy"), UNIMPLEMENTED, NULL);
  rt_tensor_release(t);
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &t));
  assert_status(rt_npy_write_file(t, "/nonexistent-dir/x.npy"), NOT_FOUND,
                "/nonexistent-dir/x.npy");
  rt_tensor_release(t);
  assert_int_not_equal(access(tmp_path("bf16.npy"), F_OK), 0); /* not written */
}

static void test_npy_read_missing_file(void **state) {
  (void)state;
  rt_tensor_t *t = NULL;
  assert_status(rt_npy_read_file(rt_allocator_system(), "/nonexistent/in.npy", &t),
                NOT_FOUND, "cannot open '/nonexistent/in.npy'");
  assert_null(t);
}

typedef struct {
  const char *file;
  rt_status_code_t code;
  const char *needle;
} bad_case;

static const bad_case kBad[] = {
    {"bad_magic.npy", RT_STATUS_INVALID_ARGUMENT, "not a .npy file (bad magic)"},
    {"truncated_magic.npy", RT_STATUS_DATA_LOSS, "truncated .npy file"},
    {"truncated_header_len.npy", RT_STATUS_DATA_LOSS, "no header length"},
    {"v2_truncated_len.npy", RT_STATUS_DATA_LOSS, "no header length"},
    {"header_len_past_end.npy", RT_STATUS_DATA_LOSS, "runs past the end"},
    {"truncated_data.npy", RT_STATUS_DATA_LOSS, "the file has 20 (truncated)"},
    {"trailing_bytes.npy", RT_STATUS_DATA_LOSS, "(trailing bytes)"},
    {"lying_shape.npy", RT_STATUS_DATA_LOSS, "says 400 data bytes"},
    {"huge_shape.npy", RT_STATUS_DATA_LOSS, "shape is too large"},
    {"missing_shape.npy", RT_STATUS_INVALID_ARGUMENT, "missing key 'shape'"},
    {"unclosed_dict.npy", RT_STATUS_INVALID_ARGUMENT, "malformed .npy header"},
    {"version_4.npy", RT_STATUS_INVALID_ARGUMENT, "format version 4.0"},
    {"shape_not_tuple.npy", RT_STATUS_INVALID_ARGUMENT, "is not a tuple"},
    {"extra_key.npy", RT_STATUS_INVALID_ARGUMENT, "unexpected key 'x'"},
    {"duplicate_key.npy", RT_STATUS_INVALID_ARGUMENT, "duplicate key 'descr'"},
    {"bad_bool.npy", RT_STATUS_INVALID_ARGUMENT, "True or False"},
    {"negative_dim.npy", RT_STATUS_INVALID_ARGUMENT, "non-negative integer"},
    {"void_descr.npy", RT_STATUS_UNIMPLEMENTED, "bfloat16 has no numpy descr"},
    {"fortran.npy", RT_STATUS_INVALID_ARGUMENT, "fortran_order arrays are not supported"},
    {"object.npy", RT_STATUS_INVALID_ARGUMENT, "object arrays (descr '|O')"},
    {"big_endian.npy", RT_STATUS_INVALID_ARGUMENT, "big-endian data not supported"},
    {"complex.npy", RT_STATUS_INVALID_ARGUMENT, "unsupported .npy descr '<c8'"},
    {"U_surrogate.npy", RT_STATUS_INVALID_ARGUMENT, "holds U+D800, not a Unicode character"},
};

static void test_npy_malformed_corpus(void **state) {
  (void)state;
  for (size_t i = 0; i < RT_COUNTOF(kBad); ++i) {
    char rel[128];
    snprintf(rel, sizeof rel, "runtime/data/npy/bad/%s", kBad[i].file);
    rt_test_alloc_t counts = {0, 0, -1, 0};
    rt_tensor_t *t = NULL;
    rt_status_t status =
        rt_npy_read_file(rt_test_allocator(&counts), rt_test_path(rel), &t);
    const char *msg = rt_status_message(status);
    if (rt_status_code(status) != kBad[i].code || !strstr(msg, kBad[i].needle) ||
        !strstr(msg, kBad[i].file)) {
      print_error("%s: expected %s \"%s\", got %s: %s\n", kBad[i].file,
                  rt_status_code_name(kBad[i].code), kBad[i].needle,
                  rt_status_code_name(rt_status_code(status)), msg);
      rt_status_free(status);
      fail();
    }
    rt_status_free(status);
    assert_null(t);
    assert_int_equal(counts.live_allocations, 0);
  }
}

/* Every prefix of a valid file is an error, never a crash or a tensor. */
static void test_npy_every_truncation(void **state) {
  (void)state;
  size_t size = 0;
  char *bytes = rt_test_read_file(rt_test_path("runtime/data/npy/i2_2x3x4.npy"), &size);
  for (size_t n = 0; n < size; ++n) {
    rt_tensor_t *t = NULL;
    rt_status_t status = rt_npy_read_memory(rt_allocator_system(), bytes, n, "cut", &t);
    assert_non_null(status);
    rt_status_code_t code = rt_status_code(status);
    assert_true(code == RT_STATUS_DATA_LOSS || code == RT_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(rt_status_message(status), "cut"));
    rt_status_free(status);
  }
  rt_mem_free(bytes);
}

static void test_npy_header_variants(void **state) {
  (void)state;
  /* Double quotes, no trailing comma, Python 2 longs, no final newline. */
  static const char header[] =
      "{\"descr\":\"<u2\",\"shape\":(2L,),\"fortran_order\":False}";
  char file[128];
  memcpy(file, "\x93NUMPY\x01\x00", 8);
  file[8] = (char)(sizeof header - 1);
  file[9] = 0;
  memcpy(file + 10, header, sizeof header - 1);
  size_t size = 10 + sizeof header - 1;
  memcpy(file + size, "\x01\x00\x02\x00", 4);
  size += 4;
  rt_tensor_t *t = NULL;
  assert_ok(rt_npy_read_memory(rt_allocator_system(), file, size, "mem", &t));
  check_shape(t, RT_DTYPE_UINT16, 1, (int64_t[]){2});
  assert_int_equal(((uint16_t *)rt_tensor_data(t))[1], 2);
  rt_tensor_release(t);
}

static void test_npy_alloc_failure_every_index(void **state) {
  (void)state;
  size_t size = 0;
  char *bytes = rt_test_read_file(rt_test_path("runtime/data/npy/f4_2x3.npy"), &size);
  for (int64_t fail_at = 0;; ++fail_at) {
    rt_test_alloc_t counts = {0, 0, fail_at, 0};
    rt_tensor_t *t = NULL;
    rt_status_t status =
        rt_npy_read_memory(rt_test_allocator(&counts), bytes, size, "mem", &t);
    if (!status) {
      rt_tensor_release(t);
      assert_int_equal(counts.live_allocations, 0);
      assert_true(fail_at >= 2);
      break;
    }
    assert_int_equal(rt_status_code(status), RT_STATUS_RESOURCE_EXHAUSTED);
    rt_status_free(status);
    assert_int_equal(counts.live_allocations, 0);
  }
  rt_mem_free(bytes);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_npy_read_float32),
      cmocka_unit_test(test_npy_read_every_dtype),
      cmocka_unit_test(test_npy_read_scalar_empty_rank3),
      cmocka_unit_test(test_npy_read_versions_2_and_3),
      cmocka_unit_test(test_npy_write_matches_numpy),
      cmocka_unit_test(test_npy_strings),
      cmocka_unit_test(test_npy_write_strided_compacts),
      cmocka_unit_test(test_npy_write_unsupported),
      cmocka_unit_test(test_npy_read_missing_file),
      cmocka_unit_test(test_npy_malformed_corpus),
      cmocka_unit_test(test_npy_every_truncation),
      cmocka_unit_test(test_npy_header_variants),
      cmocka_unit_test(test_npy_alloc_failure_every_index),
  };
  return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
