/* Tests of param sets and TVM's param blob: set/find/replace, reading and
 * writing blobs built here field by field (so the expected bytes do not
 * come from the code under test), the two b64ndarrays of TVM's metadata
 * example, round trips of every dtype, a corpus of malformed blobs each
 * with its error, every truncation, and allocation failure at every
 * index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/base64.h"
#include "runtime/ndarray_blob.h"
#include "runtime/tensor_impl.h"
#include "test_util.h"
#include "runtime/mem.h"

/* ---- a byte builder independent of runtime/bytes.h --------------------- */

typedef struct {
  uint8_t b[1024];
  size_t n;
} bytes_t;

static void put(bytes_t *o, const void *p, size_t n) {
  assert_true(o->n + n <= sizeof o->b);
  memcpy(o->b + o->n, p, n);
  o->n += n;
}
static void u8(bytes_t *o, uint8_t v) { put(o, &v, 1); }
static void u16(bytes_t *o, uint16_t v) { u8(o, (uint8_t)v); u8(o, (uint8_t)(v >> 8)); }
static void u32(bytes_t *o, uint32_t v) { u16(o, (uint16_t)v); u16(o, (uint16_t)(v >> 16)); }
static void u64(bytes_t *o, uint64_t v) { u32(o, (uint32_t)v); u32(o, (uint32_t)(v >> 32)); }
static void name(bytes_t *o, const char *s) { u64(o, strlen(s)); put(o, s, strlen(s)); }

/* An NDArray record header up to and including data_byte_size. */
static void array_header(bytes_t *o, uint8_t code, uint8_t bits, uint16_t lanes,
                         int32_t ndim, const int64_t *shape, uint64_t data_size) {
  u64(o, 0xDD5E40F096B4A13Full); /* kTVMNDArrayMagic */
  u64(o, 0);                     /* reserved */
  u32(o, 1);                     /* device_type kDLCPU */
  u32(o, 0);                     /* device_id */
  u32(o, (uint32_t)ndim);
  u8(o, code);
  u8(o, bits);
  u16(o, lanes);
  for (int32_t i = 0; shape && i < ndim; ++i) u64(o, (uint64_t)shape[i]);
  u64(o, data_size);
}

/* The blob: "w" float32 (2, 2) = 1, 2, 3, 4 and "flag" bool (3,) = 1, 0, 1. */
static bytes_t golden_blob(void) {
  bytes_t o = {{0}, 0};
  u64(&o, 0xF7E58D4F05049CB7ull); /* kTVMNDArrayListMagic */
  u64(&o, 0);
  u64(&o, 2);
  name(&o, "w");
  name(&o, "flag");
  u64(&o, 2);
  array_header(&o, 2 /* kDLFloat */, 32, 1, 2, (int64_t[]){2, 2}, 16);
  const float w[] = {1, 2, 3, 4};
  put(&o, w, sizeof w);
  array_header(&o, 1 /* kDLUInt */, 1, 1, 1, (int64_t[]){3}, 3);
  put(&o, "\x01\x00\x01", 3);
  return o;
}

static char g_tmpdir[64];

static int setup_tmpdir(void **state) {
  (void)state;
  snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/rt_test_params_XXXXXX");
  return mkdtemp(g_tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state) {
  (void)state;
  return rmdir(g_tmpdir);
}

static rt_tensor_t *make_f32(rt_allocator_t a, int32_t rank, const int64_t *shape,
                             const float *values) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, rank, shape, &t));
  memcpy(rt_tensor_data(t), values, rt_tensor_nbytes(t));
  return t;
}

static void test_params_set_find_replace(void **state) {
  (void)state;
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_allocator_t a = rt_test_allocator(&counts);
  rt_params_t *p = NULL;
  assert_ok(rt_params_create(a, &p));
  assert_int_equal(rt_params_count(p), 0);
  rt_tensor_t *x = make_f32(a, 1, (int64_t[]){1}, (float[]){1});
  rt_tensor_t *y = make_f32(a, 1, (int64_t[]){1}, (float[]){2});
  rt_tensor_t *z = make_f32(a, 1, (int64_t[]){1}, (float[]){3});
  char nm[16];
  for (int i = 0; i < 20; ++i) { /* grows past the first capacity */
    snprintf(nm, sizeof nm, "p%d", i);
    assert_ok(rt_params_set(p, nm, i % 2 ? x : y));
  }
  assert_ok(rt_params_set(p, "a", x));
  assert_int_equal(rt_params_count(p), 21);
  assert_ok(rt_params_set(p, "a", z)); /* replaces */
  assert_int_equal(rt_params_count(p), 21);
  assert_ptr_equal(rt_params_find(p, "a"), z);
  assert_ptr_equal(rt_params_tensor(p, 20), z);
  assert_string_equal(rt_params_name(p, 20), "a");
  assert_string_equal(rt_params_name(p, 3), "p3");
  assert_null(rt_params_find(p, "missing"));
  assert_null(rt_params_name(p, 21));
  assert_null(rt_params_tensor(p, -1));
  assert_status(rt_params_set(p, NULL, x), INVALID_ARGUMENT, NULL);
  rt_tensor_release(x);
  rt_tensor_release(y);
  rt_tensor_release(z);
  rt_params_retain(p);
  rt_params_release(p);
  assert_true(counts.live_allocations > 0);
  rt_params_release(p);
  assert_int_equal(counts.live_allocations, 0);
  rt_params_release(NULL);
}

static void test_params_read_hand_built(void **state) {
  (void)state;
  bytes_t blob = golden_blob();
  rt_params_t *p = NULL;
  assert_ok(rt_params_read_memory(rt_allocator_system(), blob.b, blob.n, "mem", &p));
  assert_int_equal(rt_params_count(p), 2);
  assert_string_equal(rt_params_name(p, 0), "w");
  assert_string_equal(rt_params_name(p, 1), "flag");
  rt_tensor_t *w = rt_params_find(p, "w");
  assert_true(rt_dtype_equal(rt_tensor_dtype(w), RT_DTYPE_FLOAT32));
  assert_int_equal(rt_tensor_rank(w), 2);
  assert_int_equal(rt_tensor_shape(w)[1], 2);
  const float expect[] = {1, 2, 3, 4};
  assert_memory_equal(rt_tensor_data(w), expect, sizeof expect);
  rt_tensor_t *flag = rt_params_find(p, "flag");
  assert_true(rt_dtype_equal(rt_tensor_dtype(flag), RT_DTYPE_BOOL));
  assert_memory_equal(rt_tensor_data(flag), "\x01\x00\x01", 3);
  rt_params_release(p);
}

static void test_params_write_matches_hand_built(void **state) {
  (void)state;
  rt_allocator_t a = rt_allocator_system();
  rt_params_t *p = NULL;
  assert_ok(rt_params_create(a, &p));
  rt_tensor_t *w = make_f32(a, 2, (int64_t[]){2, 2}, (float[]){1, 2, 3, 4});
  rt_tensor_t *flag = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_BOOL, 1, (int64_t[]){3}, &flag));
  memcpy(rt_tensor_data(flag), "\x01\x00\x01", 3);
  assert_ok(rt_params_set(p, "w", w));
  assert_ok(rt_params_set(p, "flag", flag));
  rt_tensor_release(w);
  rt_tensor_release(flag);
  char path[128];
  snprintf(path, sizeof path, "%s/golden.params", g_tmpdir);
  assert_ok(rt_params_write_file(p, path));
  size_t size = 0;
  char *written = rt_test_read_file(path, &size);
  bytes_t blob = golden_blob();
  assert_int_equal(size, blob.n);
  assert_memory_equal(written, blob.b, blob.n);
  rt_mem_free(written);
  rt_params_t *back = NULL;
  assert_ok(rt_params_read_file(a, path, &back));
  assert_int_equal(rt_params_count(back), 2);
  rt_params_release(back);
  unlink(path);
  rt_params_release(p);
}

static void test_params_round_trip_every_dtype(void **state) {
  (void)state;
  const rt_dtype_t dtypes[] = {
      RT_DTYPE_BOOL,   RT_DTYPE_INT8,    RT_DTYPE_INT16,   RT_DTYPE_INT32,
      RT_DTYPE_INT64,  RT_DTYPE_UINT8,   RT_DTYPE_UINT16,  RT_DTYPE_UINT32,
      RT_DTYPE_UINT64, RT_DTYPE_FLOAT16, RT_DTYPE_BFLOAT16, RT_DTYPE_FLOAT32,
      RT_DTYPE_FLOAT64, {kDLFloat, 32, 4}};
  rt_test_alloc_t counts = {0, 0, -1, 0};
  rt_allocator_t a = rt_test_allocator(&counts);
  rt_params_t *p = NULL;
  assert_ok(rt_params_create(a, &p));
  for (size_t i = 0; i < RT_COUNTOF(dtypes); ++i) {
    int64_t shape[] = {(int64_t)i % 3, 2, 3};
    int32_t rank = (int32_t)(i % 4); /* scalars, empty and rank 3 */
    rt_tensor_t *t = NULL;
    assert_ok(rt_tensor_create(a, dtypes[i], rank, shape, &t));
    uint8_t *d = rt_tensor_data(t);
    for (size_t k = 0; k < rt_tensor_nbytes(t); ++k) {
      d[k] = rt_dtype_is_bool(dtypes[i]) ? (uint8_t)(k % 2) : (uint8_t)(k * 7 + i);
    }
    char nm[16];
    snprintf(nm, sizeof nm, "t%zu", i);
    assert_ok(rt_params_set(p, nm, t));
    rt_tensor_release(t);
  }
  char path[128];
  snprintf(path, sizeof path, "%s/all.params", g_tmpdir);
  assert_ok(rt_params_write_file(p, path));
  rt_params_t *back = NULL;
  assert_ok(rt_params_read_file(a, path, &back));
  unlink(path);
  assert_int_equal(rt_params_count(back), (int32_t)RT_COUNTOF(dtypes));
  for (int32_t i = 0; i < rt_params_count(p); ++i) {
    rt_tensor_t *x = rt_params_tensor(p, i), *y = rt_params_tensor(back, i);
    assert_string_equal(rt_params_name(p, i), rt_params_name(back, i));
    assert_true(rt_dtype_equal(rt_tensor_dtype(x), rt_tensor_dtype(y)));
    assert_int_equal(rt_tensor_rank(x), rt_tensor_rank(y));
    assert_int_equal(rt_tensor_nbytes(x), rt_tensor_nbytes(y));
    if (rt_tensor_nbytes(x)) {
      assert_memory_equal(rt_tensor_data(x), rt_tensor_data(y), rt_tensor_nbytes(x));
    }
  }
  rt_params_release(back);
  rt_params_release(p);
  assert_int_equal(counts.live_allocations, 0);
}

/* The two b64ndarrays of a dense + bias + scale model's metadata section as
 * TVM printed it (test/ir/corpus/metadata_dense.relay), copied verbatim.
 * Expected values were decoded independently with Python's struct. */
static const char kB64Weight[] =
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQADAAAAAAAAAAQAAAAAAAAAMAAAAAAAAADtQ9W/"
    "Sv+vPoMvA7/vcKk/Uztcv4L9BD878KG/VS8KwHOV3j5t3N0/gycFP/hGgL8=";
static const char kB64Bias[] =
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAlmSJPpBlRD+ae5g/";

static void check_b64(const char *text, int32_t rank, const int64_t *shape,
                      uint32_t first_bits, uint32_t last_bits) {
  uint8_t *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_base64_decode(text, strlen(text), &bytes, &size));
  size_t offset = 0;
  rt_tensor_t *t = NULL;
  assert_ok(rt_ndarray_blob_read(rt_allocator_system(), bytes, size, &offset, "meta", &t));
  assert_int_equal(offset, size);
  assert_true(rt_dtype_equal(rt_tensor_dtype(t), RT_DTYPE_FLOAT32));
  assert_int_equal(rt_tensor_rank(t), rank);
  for (int32_t i = 0; i < rank; ++i) assert_int_equal(rt_tensor_shape(t)[i], shape[i]);
  const uint32_t *bits = rt_tensor_data(t);
  assert_int_equal(bits[0], first_bits);
  assert_int_equal(bits[rt_tensor_numel(t) - 1], last_bits);
  /* Writing it back gives the same record, byte for byte. */
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_ndarray_blob_write(t, &out);
  assert_false(out.failed);
  assert_int_equal(out.len, size);
  assert_memory_equal(out.data, bytes, size);
  rt_strbuf_deinitialize(&out);
  rt_tensor_release(t);
  rt_mem_free(bytes);
}

/* A string tensor has no NDArray form: its record carries zeros for the
 * elements (never the addresses) and reading it back is refused. */
static void test_params_blob_refuses_strings(void **state) {
  (void)state;
  const int64_t n = 2;
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_STRING, 1, &n, &t));
  assert_ok(rt_tensor_set_string(t, 0, "abc", 3));
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_ndarray_blob_write(t, &out);
  assert_false(out.failed);
  for (size_t i = out.len - 2 * sizeof(rt_string_t); i < out.len; ++i) assert_int_equal(out.data[i], 0);
  size_t offset = 0;
  rt_tensor_t *back = NULL;
  assert_status(rt_ndarray_blob_read(rt_allocator_system(), (const uint8_t *)out.data, out.len, &offset,
                                     "meta", &back),
                DATA_LOSS, "NDArray dtype {code 200, bits 128, lanes 1} is not supported");
  rt_strbuf_deinitialize(&out);
  rt_tensor_release(t);
}

static void test_params_metadata_b64ndarrays(void **state) {
  (void)state;
  check_b64(kB64Weight, 2, (int64_t[]){3, 4}, 0xbfd543ed, 0xbf8046f8);
  check_b64(kB64Bias, 1, (int64_t[]){3}, 0x3e896496, 0x3f987b9a);
}

static void test_params_ndarray_strided_write(void **state) {
  (void)state;
  int16_t data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[] = {3, 2}, strides[] = {1, 3};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.dl_tensor.data = data;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = RT_DTYPE_INT16;
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_from_dlpack(&m, &t));
  rt_strbuf_t out;
  rt_strbuf_initialize(&out);
  rt_ndarray_blob_write(t, &out);
  bytes_t expect = {{0}, 0};
  array_header(&expect, 0, 16, 1, 2, shape, 12);
  const int16_t compact[] = {0, 3, 1, 4, 2, 5};
  put(&expect, compact, sizeof compact);
  assert_int_equal(out.len, expect.n);
  assert_memory_equal(out.data, expect.b, expect.n);
  rt_strbuf_deinitialize(&out);
  rt_tensor_release(t);
}

/* ---- malformed blobs ---------------------------------------------------- */

typedef struct {
  const char *what;
  bytes_t bytes;
  const char *needle;
} bad_blob;

/* Header of a list with one name, then the caller appends the record. */
static bytes_t one_name_prefix(const char *nm) {
  bytes_t o = {{0}, 0};
  u64(&o, 0xF7E58D4F05049CB7ull);
  u64(&o, 0);
  u64(&o, 1);
  name(&o, nm);
  u64(&o, 1);
  return o;
}

static void test_params_malformed_corpus(void **state) {
  (void)state;
  bad_blob cases[20];
  int n = 0;
  bytes_t g = golden_blob();
  bytes_t o;

  o = g; o.b[0] ^= 1;
  cases[n++] = (bad_blob){"bad list magic", o, "at offset 0: bad param blob magic"};
  o = g; o.n = 20;
  cases[n++] = (bad_blob){"truncated list header", o, "truncated param blob (20 bytes"};
  o = g; memset(o.b + 16, 0xff, 7);
  cases[n++] = (bad_blob){"huge name count", o, "at offset 16: name count 72057594037927935"};
  o = g; o.b[24] = 0xff; o.b[25] = 0xff; o.b[26] = 0xff;
  cases[n++] = (bad_blob){"name length past end", o, "at offset 24: name length 16777215 runs"};
  o = g; o.b[24 + 9 + 8 + 4] = 3;
  cases[n++] = (bad_blob){"array count mismatch", o, "3 arrays for 2 names"};
  o = g; o.n = 24 + 9 + 12 + 8 + 20;
  cases[n++] = (bad_blob){"truncated record header", o, "truncated NDArray record"};
  o = g; o.b[24 + 9 + 12 + 8] ^= 0x80;
  cases[n++] = (bad_blob){"bad record magic", o, "bad NDArray magic"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 1000000, NULL, 0);
  cases[n++] = (bad_blob){"huge ndim", o, "NDArray ndim 1000000 is outside"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 1, (int64_t[]){4}, 0xFFFFFFFFFFFFull);
  cases[n++] = (bad_blob){"huge data size", o, "data_byte_size 281474976710655 runs past"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 1, (int64_t[]){4}, 12);
  put(&o, "0123456789ab", 12);
  cases[n++] = (bad_blob){"data size disagrees", o, "data_byte_size 12 disagrees"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 2, (int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40}, 16);
  put(&o, "0123456789abcdef", 16);
  cases[n++] = (bad_blob){"shape product overflows", o, "disagrees with its shape"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 1, (int64_t[]){-4}, 16);
  put(&o, "0123456789abcdef", 16);
  cases[n++] = (bad_blob){"negative dim", o, "negative NDArray dimension -4"};
  o = one_name_prefix("x");
  array_header(&o, 5 /* complex */, 64, 1, 0, NULL, 8);
  put(&o, "01234567", 8);
  cases[n++] = (bad_blob){"unsupported dtype", o, "{code 5, bits 64, lanes 1}"};
  o = one_name_prefix("x");
  array_header(&o, 2, 32, 1, 0, NULL, 4);
  put(&o, "0123", 4);
  o.b[24 + 9 + 8 + 16] = 2; /* device_type kDLCUDA */
  cases[n++] = (bad_blob){"non-CPU device", o, "device type 2 is not CPU"};
  o = g; u8(&o, 0);
  cases[n++] = (bad_blob){"trailing bytes", o, "1 trailing bytes"};
  o = (bytes_t){{0}, 0};
  u64(&o, 0xF7E58D4F05049CB7ull); u64(&o, 0); u64(&o, 2);
  name(&o, "dup"); name(&o, "dup"); u64(&o, 2);
  array_header(&o, 0, 8, 1, 0, NULL, 1); u8(&o, 1);
  array_header(&o, 0, 8, 1, 0, NULL, 1); u8(&o, 2);
  cases[n++] = (bad_blob){"duplicate names", o, "param name 'dup' appears twice"};
  o = (bytes_t){{0}, 0};
  u64(&o, 0xF7E58D4F05049CB7ull); u64(&o, 0); u64(&o, 1);
  u64(&o, 3); put(&o, "a\0b", 3); u64(&o, 1);
  array_header(&o, 0, 8, 1, 0, NULL, 1); u8(&o, 1);
  cases[n++] = (bad_blob){"NUL in name", o, "contains a NUL byte"};
  o = g; o.n -= 1;
  cases[n++] = (bad_blob){"truncated data", o, "data_byte_size 3 runs past the end"};
  assert_true(n <= (int)RT_COUNTOF(cases));

  for (int i = 0; i < n; ++i) {
    rt_test_alloc_t counts = {0, 0, -1, 0};
    rt_params_t *p = NULL;
    rt_status_t status = rt_params_read_memory(rt_test_allocator(&counts),
                                               cases[i].bytes.b, cases[i].bytes.n,
                                               "bad.params", &p);
    const char *msg = rt_status_message(status);
    if (rt_status_code(status) != RT_STATUS_DATA_LOSS || !strstr(msg, cases[i].needle) ||
        !strstr(msg, "bad.params")) {
      print_error("%s: expected DATA_LOSS \"%s\", got %s: %s\n", cases[i].what,
                  cases[i].needle, rt_status_code_name(rt_status_code(status)), msg);
      rt_status_free(status);
      fail();
    }
    rt_status_free(status);
    assert_null(p);
    assert_int_equal(counts.live_allocations, 0);
  }
}

static void test_params_every_truncation(void **state) {
  (void)state;
  bytes_t g = golden_blob();
  for (size_t n = 0; n < g.n; ++n) {
    rt_test_alloc_t counts = {0, 0, -1, 0};
    rt_params_t *p = NULL;
    assert_status(rt_params_read_memory(rt_test_allocator(&counts), g.b, n, "cut", &p),
                  DATA_LOSS, "cut");
    assert_int_equal(counts.live_allocations, 0);
  }
}

static void test_params_alloc_failure_every_index(void **state) {
  (void)state;
  bytes_t g = golden_blob();
  int failures = 0;
  for (int64_t fail_at = 0;; ++fail_at) {
    rt_test_alloc_t counts = {0, 0, fail_at, 0};
    rt_params_t *p = NULL;
    rt_status_t status = rt_params_read_memory(rt_test_allocator(&counts), g.b, g.n,
                                               "mem", &p);
    if (!status) {
      rt_params_release(p);
      assert_int_equal(counts.live_allocations, 0);
      break;
    }
    assert_int_equal(rt_status_code(status), RT_STATUS_RESOURCE_EXHAUSTED);
    rt_status_free(status);
    assert_int_equal(counts.live_allocations, 0);
    failures++;
  }
  assert_true(failures >= 8); /* params, names array, 2 names, 2 x 2 per tensor, ... */
}

static void test_params_read_missing_file(void **state) {
  (void)state;
  rt_params_t *p = NULL;
  assert_status(rt_params_read_file(rt_allocator_system(), "/nonexistent/x.params", &p),
                NOT_FOUND, "/nonexistent/x.params");
  assert_null(p);
}

static void test_params_empty_blob(void **state) {
  (void)state;
  bytes_t o = {{0}, 0};
  u64(&o, 0xF7E58D4F05049CB7ull); u64(&o, 0); u64(&o, 0); u64(&o, 0);
  rt_params_t *p = NULL;
  assert_ok(rt_params_read_memory(rt_allocator_system(), o.b, o.n, "empty", &p));
  assert_int_equal(rt_params_count(p), 0);
  rt_params_release(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_params_set_find_replace),
      cmocka_unit_test(test_params_read_hand_built),
      cmocka_unit_test(test_params_write_matches_hand_built),
      cmocka_unit_test(test_params_round_trip_every_dtype),
      cmocka_unit_test(test_params_metadata_b64ndarrays),
      cmocka_unit_test(test_params_ndarray_strided_write),
      cmocka_unit_test(test_params_malformed_corpus),
      cmocka_unit_test(test_params_every_truncation),
      cmocka_unit_test(test_params_alloc_failure_every_index),
      cmocka_unit_test(test_params_read_missing_file),
      cmocka_unit_test(test_params_empty_blob),
      cmocka_unit_test(test_params_blob_refuses_strings),
  };
  return cmocka_run_group_tests(tests, setup_tmpdir, remove_tmpdir);
}
