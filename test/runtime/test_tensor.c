/* Tests of tensors: creation and its checks, zero fill and alignment,
 * reference counts (also across threads), clone of compact and strided
 * tensors, DLPack import/export and their round trip (the producer's
 * deleter runs exactly once), and allocation failure at every index. */
#include <pthread.h>
#include <string.h>

#include "runtime/tensor_impl.h"
#include "test_util.h"

static rt_test_alloc_t fresh_counts(void) {
  rt_test_alloc_t c = {0, 0, -1, 0};
  return c;
}

/* String tensors: zero-filled elements are empty strings; set_string
 * copies, clone copies every string, and release frees them all (the
 * counting allocator sees no live allocation); DLPack has no strings. */
static void test_tensor_strings(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  rt_allocator_t a = rt_test_allocator(&counts);
  const int64_t shape[] = {2, 2};
  rt_tensor_t *t = NULL, *c = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_STRING, 2, shape, &t));
  assert_int_equal(rt_tensor_nbytes(t), 4 * sizeof(rt_string_t));
  const rt_string_t *e = rt_tensor_data(t);
  for (int i = 0; i < 4; ++i) {
    assert_null(e[i].data);
    assert_int_equal(e[i].size, 0);
  }
  char word[] = "monday";
  assert_ok(rt_tensor_set_string(t, 1, word, 6));
  word[0] = 'M'; /* a copy was taken */
  assert_ok(rt_tensor_set_string(t, 3, "x", 1));
  assert_ok(rt_tensor_set_string(t, 3, "yz", 2)); /* the old one is freed */
  assert_status(rt_tensor_set_string(t, 4, "a", 1), INVALID_ARGUMENT, "outside");
  assert_ok(rt_tensor_clone(a, t, &c));
  const rt_string_t *ce = rt_tensor_data(c);
  assert_int_equal(ce[1].size, 6);
  assert_memory_equal(ce[1].data, "monday", 6);
  assert_true(ce[1].data != e[1].data);
  assert_memory_equal(ce[3].data, "yz", 2);
  assert_int_equal(ce[0].size, 0);
  DLManagedTensorVersioned *m = NULL;
  assert_status(rt_tensor_to_dlpack(t, &m), UNIMPLEMENTED, "no DLPack form");
  rt_tensor_release(t);
  rt_tensor_release(c);
  assert_int_equal(counts.live_allocations, 0);
  rt_tensor_t *f = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, shape, &f));
  assert_status(rt_tensor_set_string(f, 0, "a", 1), INVALID_ARGUMENT, "not a compact string tensor");
  rt_tensor_release(f);
  char name[RT_DTYPE_NAME_MAX];
  assert_string_equal(rt_dtype_name(RT_DTYPE_STRING, name), "string");
  rt_dtype_t dt;
  assert_ok(rt_dtype_parse("string", 6, &dt));
  assert_true(rt_dtype_is_string(dt));
}

static void test_tensor_create_basic(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  rt_allocator_t a = rt_test_allocator(&counts);
  int64_t shape[] = {2, 3, 5};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, 3, shape, &t));
  assert_int_equal(rt_tensor_rank(t), 3);
  assert_memory_equal(rt_tensor_shape(t), shape, sizeof shape);
  assert_true(rt_dtype_equal(rt_tensor_dtype(t), RT_DTYPE_FLOAT32));
  assert_int_equal(rt_tensor_numel(t), 30);
  assert_int_equal(rt_tensor_nbytes(t), 120);
  assert_null(rt_tensor_strides(t));
  assert_true(rt_tensor_is_compact(t));
  assert_int_equal(rt_tensor_byte_offset(t), 0);
  assert_int_equal((uintptr_t)rt_tensor_data(t) % RT_TENSOR_ALIGNMENT, 0);
  const unsigned char *d = rt_tensor_data(t);
  for (size_t i = 0; i < 120; ++i) assert_int_equal(d[i], 0);
  /* The shape is a copy. */
  shape[0] = 99;
  assert_int_equal(rt_tensor_shape(t)[0], 2);
  DLTensor dl;
  rt_tensor_dltensor(t, &dl);
  assert_ptr_equal(dl.data, rt_tensor_data(t));
  assert_int_equal(dl.device.device_type, kDLCPU);
  assert_int_equal(dl.ndim, 3);
  assert_ptr_equal(dl.shape, rt_tensor_shape(t));
  assert_null(dl.strides);
  rt_tensor_release(t);
  assert_int_equal(counts.live_allocations, 0);
  rt_tensor_release(NULL);
}

static void test_tensor_create_scalar_and_empty(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  rt_allocator_t a = rt_test_allocator(&counts);
  rt_tensor_t *s = NULL, *e = NULL, *huge_empty = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_INT64, 0, NULL, &s));
  assert_int_equal(rt_tensor_numel(s), 1);
  assert_int_equal(rt_tensor_nbytes(s), 8);
  int64_t empty[] = {4, 0, 3};
  assert_ok(rt_tensor_create(a, RT_DTYPE_BOOL, 3, empty, &e));
  assert_int_equal(rt_tensor_numel(e), 0);
  assert_int_equal(rt_tensor_nbytes(e), 0);
  assert_non_null(rt_tensor_data(e));
  /* A zero dim makes any shape empty, even one whose product would overflow. */
  int64_t big_empty[] = {INT64_C(1) << 62, INT64_C(1) << 62, 0};
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT64, 3, big_empty, &huge_empty));
  assert_int_equal(rt_tensor_nbytes(huge_empty), 0);
  rt_tensor_t *clone = NULL;
  assert_ok(rt_tensor_clone(a, e, &clone));
  assert_int_equal(rt_tensor_numel(clone), 0);
  rt_tensor_release(clone);
  rt_tensor_release(s);
  rt_tensor_release(e);
  rt_tensor_release(huge_empty);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_tensor_create_rejects(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  rt_allocator_t a = rt_test_allocator(&counts);
  rt_tensor_t *t = NULL;
  int64_t neg[] = {3, -1};
  assert_status(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, neg, &t), INVALID_ARGUMENT,
                "negative dimension -1 at axis 1");
  int64_t many[RT_TENSOR_MAX_RANK + 1];
  for (int i = 0; i <= RT_TENSOR_MAX_RANK; ++i) many[i] = 1;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, RT_TENSOR_MAX_RANK, many, &t));
  rt_tensor_release(t);
  t = NULL;
  assert_status(rt_tensor_create(a, RT_DTYPE_FLOAT32, RT_TENSOR_MAX_RANK + 1, many, &t),
                INVALID_ARGUMENT, "rank 33");
  assert_status(rt_tensor_create(a, RT_DTYPE_FLOAT32, -1, many, &t), INVALID_ARGUMENT,
                "rank -1");
  assert_status(rt_tensor_create(a, (rt_dtype_t){kDLFloat, 32, 0}, 1, many, &t),
                INVALID_ARGUMENT, "invalid tensor dtype");
  assert_status(rt_tensor_create(a, (rt_dtype_t){kDLComplex, 64, 1}, 1, many, &t),
                INVALID_ARGUMENT, "complex64");
  int64_t huge[] = {INT64_C(1) << 40, INT64_C(1) << 40};
  assert_status(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, huge, &t), RESOURCE_EXHAUSTED,
                "overflows");
  int64_t max[] = {INT64_MAX};
  assert_status(rt_tensor_create(a, RT_DTYPE_INT16, 1, max, &t), RESOURCE_EXHAUSTED,
                "overflows");
  assert_status(rt_tensor_create(a, RT_DTYPE_INT8, 1, NULL, &t), INVALID_ARGUMENT,
                "without a shape");
  assert_null(t);
  assert_int_equal(counts.live_allocations, 0);
  assert_int_equal(counts.total_allocations, 2); /* only the rank-32 success */
}

static void test_tensor_refcount(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  int64_t shape[] = {4};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_test_allocator(&counts), RT_DTYPE_INT32, 1, shape, &t));
  rt_tensor_retain(t);
  rt_tensor_retain(t);
  rt_tensor_release(t);
  rt_tensor_release(t);
  assert_int_equal(counts.live_allocations, 2);
  rt_tensor_release(t);
  assert_int_equal(counts.live_allocations, 0);
}

static void *hammer(void *arg) {
  rt_tensor_t *t = arg;
  for (int i = 0; i < 100000; ++i) {
    rt_tensor_retain(t);
    rt_tensor_release(t);
  }
  return NULL;
}

static void test_tensor_refcount_threads(void **state) {
  (void)state;
  int64_t shape[] = {4};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 1, shape, &t));
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) assert_int_equal(pthread_create(&threads[i], NULL, hammer, t), 0);
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(atomic_load(&t->refcount), 1);
  rt_tensor_release(t);
}

static void test_tensor_clone_compact(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  rt_allocator_t a = rt_test_allocator(&counts);
  int64_t shape[] = {2, 3};
  rt_tensor_t *t = NULL, *c = NULL;
  assert_ok(rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, shape, &t));
  float *d = rt_tensor_data(t);
  for (int i = 0; i < 6; ++i) d[i] = (float)i * 1.5f;
  assert_ok(rt_tensor_clone(a, t, &c));
  assert_ptr_not_equal(rt_tensor_data(c), rt_tensor_data(t));
  assert_memory_equal(rt_tensor_data(c), d, 24);
  rt_tensor_release(t);
  rt_tensor_release(c);
  assert_int_equal(counts.live_allocations, 0);
}

/* A DLPack producer for the tests: counts deleter calls. */
typedef struct {
  DLManagedTensorVersioned managed;
  int64_t shape[4];
  int64_t strides[4];
  float data[64];
  int deleted;
} producer;

static void producer_deleter(DLManagedTensorVersioned *self) {
  producer *p = self->manager_ctx;
  p->deleted++;
}

static void producer_init(producer *p, int32_t ndim, const int64_t *shape,
                          const int64_t *strides) {
  memset(p, 0, sizeof *p);
  p->managed.version.major = 1;
  p->managed.version.minor = 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = producer_deleter;
  p->managed.dl_tensor.data = p->data;
  p->managed.dl_tensor.device.device_type = kDLCPU;
  p->managed.dl_tensor.ndim = ndim;
  p->managed.dl_tensor.dtype = RT_DTYPE_FLOAT32;
  memcpy(p->shape, shape, (size_t)ndim * sizeof(int64_t));
  p->managed.dl_tensor.shape = p->shape;
  if (strides) {
    memcpy(p->strides, strides, (size_t)ndim * sizeof(int64_t));
    p->managed.dl_tensor.strides = p->strides;
  }
  for (int i = 0; i < 64; ++i) p->data[i] = (float)i;
}

static void test_tensor_from_dlpack_deleter_once(void **state) {
  (void)state;
  producer p;
  int64_t shape[] = {3, 4};
  producer_init(&p, 2, shape, NULL);
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_from_dlpack(&p.managed, &t));
  assert_ptr_equal(rt_tensor_data(t), p.data);
  assert_int_equal(rt_tensor_numel(t), 12);
  rt_tensor_retain(t);
  rt_tensor_release(t);
  assert_int_equal(p.deleted, 0);
  rt_tensor_release(t);
  assert_int_equal(p.deleted, 1);
}

static void test_tensor_from_dlpack_byte_offset_and_null_deleter(void **state) {
  (void)state;
  producer p;
  int64_t shape[] = {2};
  producer_init(&p, 1, shape, NULL);
  p.managed.dl_tensor.byte_offset = 8;
  p.managed.deleter = NULL; /* DLPack allows it */
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_from_dlpack(&p.managed, &t));
  assert_int_equal(rt_tensor_byte_offset(t), 8);
  assert_true(((float *)rt_tensor_data(t))[0] == 2.0f);
  rt_tensor_release(t);
}

static void test_tensor_from_dlpack_rejects_keep_ownership(void **state) {
  (void)state;
  producer p;
  int64_t shape[] = {3, 4};
  rt_tensor_t *t = NULL;

  producer_init(&p, 2, shape, NULL);
  p.managed.dl_tensor.device.device_type = kDLCUDA;
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "kDLCPU");

  producer_init(&p, 2, shape, NULL);
  p.managed.dl_tensor.dtype = (rt_dtype_t){kDLComplex, 64, 1};
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "dtype");

  int64_t neg[] = {3, -4};
  producer_init(&p, 2, neg, NULL);
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "negative");

  producer_init(&p, 2, shape, NULL);
  p.managed.dl_tensor.ndim = 40;
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "rank 40");

  producer_init(&p, 2, shape, NULL);
  p.managed.dl_tensor.data = NULL;
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "no data");

  producer_init(&p, 2, shape, NULL);
  p.managed.version.major = 2;
  assert_status(rt_tensor_from_dlpack(&p.managed, &t), INVALID_ARGUMENT, "version");

  assert_status(rt_tensor_from_dlpack(NULL, &t), INVALID_ARGUMENT, NULL);
  assert_null(t);
  assert_int_equal(p.deleted, 0);
}

static void test_tensor_from_dlpack_strided_clone(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  producer p;
  /* A transposed view: logical (4, 3) over row-major (3, 4) data. */
  int64_t shape[] = {4, 3};
  int64_t strides[] = {1, 4};
  producer_init(&p, 2, shape, strides);
  rt_tensor_t *t = NULL, *c = NULL;
  assert_ok(rt_tensor_from_dlpack(&p.managed, &t));
  assert_false(rt_tensor_is_compact(t));
  assert_int_equal(rt_tensor_strides(t)[0], 1);
  assert_int_equal(rt_tensor_strides(t)[1], 4);
  assert_ok(rt_tensor_clone(rt_test_allocator(&counts), t, &c));
  assert_true(rt_tensor_is_compact(c));
  const float *d = rt_tensor_data(c);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) assert_true(d[i * 3 + j] == (float)(j * 4 + i));
  }
  rt_tensor_release(t);
  assert_int_equal(p.deleted, 1);
  rt_tensor_release(c);
  assert_int_equal(counts.live_allocations, 0);

  /* Strides that describe the compact layout are normalized to NULL. */
  int64_t compact[] = {3, 1};
  int64_t shape2[] = {4, 3};
  producer_init(&p, 2, shape2, compact);
  assert_ok(rt_tensor_from_dlpack(&p.managed, &t));
  assert_true(rt_tensor_is_compact(t));
  assert_null(rt_tensor_strides(t));
  rt_tensor_release(t);
  assert_int_equal(p.deleted, 1);
}

static void test_tensor_to_dlpack_fields(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  int64_t shape[] = {2, 3, 4};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_test_allocator(&counts), RT_DTYPE_INT16, 3, shape, &t));
  DLManagedTensorVersioned *m = NULL;
  assert_ok(rt_tensor_to_dlpack(t, &m));
  assert_int_equal(m->version.major, 1);
  assert_int_equal(m->version.minor, 0);
  assert_int_equal(m->flags, 0);
  assert_non_null(m->deleter);
  assert_ptr_equal(m->dl_tensor.data, rt_tensor_data(t));
  assert_int_equal(m->dl_tensor.device.device_type, kDLCPU);
  assert_int_equal(m->dl_tensor.ndim, 3);
  assert_true(rt_dtype_equal(m->dl_tensor.dtype, RT_DTYPE_INT16));
  assert_int_equal(m->dl_tensor.shape[2], 4);
  assert_int_equal(m->dl_tensor.strides[0], 12);
  assert_int_equal(m->dl_tensor.strides[1], 4);
  assert_int_equal(m->dl_tensor.strides[2], 1);
  assert_int_equal(m->dl_tensor.byte_offset, 0);
  /* The export holds a reference: the tensor outlives our release. */
  rt_tensor_release(t);
  assert_int_equal(counts.live_allocations, 2);
  m->deleter(m);
  assert_int_equal(counts.live_allocations, 0);
}

static void test_tensor_dlpack_round_trip(void **state) {
  (void)state;
  rt_test_alloc_t counts = fresh_counts();
  int64_t shape[] = {5};
  rt_tensor_t *t = NULL, *back = NULL;
  assert_ok(rt_tensor_create(rt_test_allocator(&counts), RT_DTYPE_FLOAT64, 1, shape, &t));
  double *d = rt_tensor_data(t);
  for (int i = 0; i < 5; ++i) d[i] = i + 0.25;
  DLManagedTensorVersioned *m = NULL;
  assert_ok(rt_tensor_to_dlpack(t, &m));
  assert_ok(rt_tensor_from_dlpack(m, &back));
  assert_ptr_equal(rt_tensor_data(back), d);
  assert_int_equal(rt_tensor_numel(back), 5);
  assert_true(rt_dtype_equal(rt_tensor_dtype(back), RT_DTYPE_FLOAT64));
  rt_tensor_release(t);
  assert_int_equal(counts.live_allocations, 2);
  assert_true(((double *)rt_tensor_data(back))[4] == 4.25);
  rt_tensor_release(back); /* runs the export's deleter, the last reference */
  assert_int_equal(counts.live_allocations, 0);
}

static void test_tensor_alloc_failure_every_index(void **state) {
  (void)state;
  int64_t shape[] = {3, 7};
  int failures = 0;
  for (int64_t fail_at = 0;; ++fail_at) {
    rt_test_alloc_t counts = fresh_counts();
    counts.fail_at = fail_at;
    rt_allocator_t a = rt_test_allocator(&counts);
    rt_tensor_t *t = NULL, *c = NULL;
    rt_status_t status = rt_tensor_create(a, RT_DTYPE_FLOAT32, 2, shape, &t);
    if (!status) status = rt_tensor_clone(a, t, &c);
    rt_tensor_release(t);
    rt_tensor_release(c);
    assert_int_equal(counts.live_allocations, 0);
    if (!status) {
      assert_true(counts.total_allocations == 4 && fail_at == 4);
      break;
    }
    assert_int_equal(rt_status_code(status), RT_STATUS_RESOURCE_EXHAUSTED);
    assert_non_null(strstr(rt_status_message(status), "bytes"));
    rt_status_free(status);
    failures++;
  }
  assert_int_equal(failures, 4);
}

static void test_tensor_copy_compact_negative_strides(void **state) {
  (void)state;
  producer p;
  int64_t shape[] = {2, 3};
  int64_t strides[] = {-3, -1}; /* both axes reversed */
  producer_init(&p, 2, shape, strides);
  p.managed.dl_tensor.byte_offset = 5 * sizeof(float);
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_from_dlpack(&p.managed, &t));
  float out[6];
  rt_tensor_copy_compact(t, out);
  for (int i = 0; i < 6; ++i) assert_true(out[i] == (float)(5 - i));
  rt_tensor_release(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tensor_create_basic),
      cmocka_unit_test(test_tensor_strings),
      cmocka_unit_test(test_tensor_create_scalar_and_empty),
      cmocka_unit_test(test_tensor_create_rejects),
      cmocka_unit_test(test_tensor_refcount),
      cmocka_unit_test(test_tensor_refcount_threads),
      cmocka_unit_test(test_tensor_clone_compact),
      cmocka_unit_test(test_tensor_from_dlpack_deleter_once),
      cmocka_unit_test(test_tensor_from_dlpack_byte_offset_and_null_deleter),
      cmocka_unit_test(test_tensor_from_dlpack_rejects_keep_ownership),
      cmocka_unit_test(test_tensor_from_dlpack_strided_clone),
      cmocka_unit_test(test_tensor_to_dlpack_fields),
      cmocka_unit_test(test_tensor_dlpack_round_trip),
      cmocka_unit_test(test_tensor_alloc_failure_every_index),
      cmocka_unit_test(test_tensor_copy_compact_negative_strides),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
