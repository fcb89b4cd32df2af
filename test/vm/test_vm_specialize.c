/* The vm's kernels compiled per shape at run time (backend/vm_specialize.c):
 * which kernels each vm.specialize mode picks, results against the debug
 * executor at several batch sizes, the cache (a shape seen before costs no
 * specialization), VMs of one build on two threads at once, and the export
 * of a build whose kernels are per shape. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "vm_test_util.h"
#include "backend/backend.h"
#include "backend/vm_compile.h"
#include "passes/pass.h"
#include "runtime/mem.h"

/* conv2d (does not lower with `?` dims), an elementwise add (lowers), a
 * dense (an anchor). */
static const char kModel[] =
    "def @main(%x: Tensor[(?, 2, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32], "
    "%d: Tensor[(5, 16), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);\n"
    "  %1 = nn.max_pool2d(%0, pool_size=[3, 3], strides=[3, 3], padding=[0, 0, 0, 0]);\n"
    "  %2 = nn.batch_flatten(%1);\n"
    "  %3 = nn.dense(%2, %d, units=5);\n"
    "  %4 = add(%x, 1f);\n"
    "  (%3, %4)\n"
    "}\n";

typedef struct {
  rt_module_t *m, *built, *prepared;
  rt_jit_session_t *jit;
  rt_vm_build_t b;
  int32_t main_index;
} fixture;

static void open_fixture(fixture *f, rt_vm_specialize_t mode) {
  memset(f, 0, sizeof *f);
  f->m = vm_test_parse(kModel);
  assert_ok(rt_build(f->m, NULL, "vm", &f->built, NULL));
  assert_ok(rt_vm_prepare_module(f->built, NULL, &f->prepared));
  assert_ok(rt_jit_session_create(rt_allocator_system(), &f->jit));
  assert_ok(rt_vm_compile(f->prepared, f->jit, RT_JIT_NO_DISK_CACHE, mode, &f->b));
  assert_ok(rt_vm_executable_lookup(&f->b.exe, "main", &f->main_index));
}

static void close_fixture(fixture *f) {
  rt_vm_build_deinitialize(&f->b);
  rt_jit_session_release(f->jit);
  rt_module_release(f->prepared);
  rt_module_release(f->built);
  rt_module_release(f->m);
}

/* Which kernels (by the op in their name) are per shape. */
static bool per_shape(const fixture *f, const char *name_has) {
  bool found = false, per = false;
  for (int32_t k = 0; k < f->b.exe.num_kernels; ++k) {
    if (!strstr(f->b.exe.kernels[k].name, name_has)) continue;
    found = true;
    per = f->b.per_shape[k] != 0;
    assert_true(per == (f->b.kernels[k] == NULL));
  }
  assert_true(found);
  return per;
}

static void test_modes_pick_kernels(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f, RT_VM_SPECIALIZE_NEEDED);
  assert_true(per_shape(&f, "conv2d"));   /* cannot lower with `?` dims */
  assert_false(per_shape(&f, "dense"));   /* lowers: kept for any shape */
  assert_false(per_shape(&f, "add"));
  for (int32_t k = 0; k < f.b.exe.num_kernels; ++k) assert_int_equal(f.b.reads_values[k], 0);
  close_fixture(&f);
  open_fixture(&f, RT_VM_SPECIALIZE_AUTO);
  assert_true(per_shape(&f, "conv2d"));
  assert_true(per_shape(&f, "dense"));    /* an anchor: its template wants static shapes */
  assert_false(per_shape(&f, "add"));
  close_fixture(&f);
  open_fixture(&f, RT_VM_SPECIALIZE_ALL);
  assert_true(per_shape(&f, "conv2d"));
  assert_true(per_shape(&f, "dense"));
  assert_true(per_shape(&f, "add"));
  close_fixture(&f);
}

/* Runs main at batch n on vm; compares both outputs with the debug
 * executor's on the same inputs. */
static void run_and_compare(fixture *f, rt_vm_t *vm, int64_t n) {
  rt_executor_t *ref = NULL;
  assert_ok(rt_create_executor("debug", f->m, NULL, NULL, NULL, &ref));
  rt_tensor_t *ins[3];
  vm_test_inputs(ref, n, ins);
  for (int32_t i = 0; i < 3; ++i) assert_ok(rt_executor_set_input(ref, i, ins[i]));
  assert_ok(rt_executor_run(ref));
  rt_vm_value_t args[3], out;
  for (int32_t i = 0; i < 3; ++i) args[i] = rt_vm_value_of_tensor(ins[i]);
  assert_ok(rt_vm_invoke(vm, f->main_index, 3, args, &out));
  assert_int_equal(out.kind, RT_VM_VALUE_TUPLE);
  assert_int_equal(out.object->count, 2);
  for (int32_t o = 0; o < 2; ++o) {
    rt_tensor_t *want = NULL;
    assert_ok(rt_executor_get_output(ref, o, &want));
    char why[200];
    if (!vm_test_tensors_close(out.object->fields[o].tensor, want, why, sizeof why)) {
      fail_msg("batch %lld, output %d: %s", (long long)n, (int)o, why);
    }
  }
  rt_vm_value_release(out);
  vm_test_release_inputs(ref, ins);
  rt_executor_release(ref);
}

static rt_vm_t *make_vm(fixture *f) {
  rt_vm_options_t opts = {0};
  opts.shape_fn = rt_vm_shape_function;
  opts.shape_user = &f->b;
  opts.resolve_fn = rt_vm_resolve_kernel;
  opts.resolve_user = &f->b;
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), &f->b.exe, f->b.kernels, NULL, &opts, &vm));
  return vm;
}

static void test_cache_per_shape(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f, RT_VM_SPECIALIZE_AUTO);
  int32_t nper = 0;
  for (int32_t k = 0; k < f.b.exe.num_kernels; ++k) nper += f.b.per_shape[k];
  assert_true(nper >= 2);
  /* Without the resolver a VM refuses the kernels that have no entry. */
  rt_vm_t *bare = NULL;
  rt_status_t st = rt_vm_create(rt_allocator_system(), &f.b.exe, f.b.kernels, NULL, NULL, &bare);
  assert_status(st, INVALID_ARGUMENT, "has no entry point");
  rt_vm_t *vm = make_vm(&f);
  int64_t made = -1, hits = -1;
  run_and_compare(&f, vm, 2);
  rt_vm_specializer_counts(&f.b, &made, &hits);
  assert_int_equal(made, nper);
  run_and_compare(&f, vm, 3);
  rt_vm_specializer_counts(&f.b, &made, &hits);
  assert_int_equal(made, 2 * nper);
  const int64_t hits_before = hits;
  run_and_compare(&f, vm, 2); /* seen: nothing new, every call a hit */
  rt_vm_specializer_counts(&f.b, &made, &hits);
  assert_int_equal(made, 2 * nper);
  assert_true(hits >= hits_before + nper);
  rt_vm_release(vm);
  close_fixture(&f);
}

typedef struct {
  fixture *f;
  int64_t batch;
} worker_arg;

static void *worker(void *p) {
  worker_arg *a = p;
  rt_vm_t *vm = make_vm(a->f);
  for (int round = 0; round < 3; ++round) run_and_compare(a->f, vm, a->batch + round % 2);
  rt_vm_release(vm);
  return NULL;
}

/* Two VMs of one build on two threads, meeting new shapes at once. */
static void test_two_threads_share_the_cache(void **state) {
  (void)state;
  fixture f;
  open_fixture(&f, RT_VM_SPECIALIZE_ALL);
  pthread_t t[2];
  worker_arg a[2] = {{&f, 1}, {&f, 4}};
  for (int i = 0; i < 2; ++i) assert_int_equal(pthread_create(&t[i], NULL, worker, &a[i]), 0);
  for (int i = 0; i < 2; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
  int32_t nper = 0;
  for (int32_t k = 0; k < f.b.exe.num_kernels; ++k) nper += f.b.per_shape[k];
  int64_t made = 0, hits = 0;
  rt_vm_specializer_counts(&f.b, &made, &hits);
  assert_int_equal(made, 4 * nper); /* batches 1, 2, 4, 5: each once */
  close_fixture(&f);
}

/* The executor's config picks the mode; an unknown mode is refused. */
static void test_config_key(void **state) {
  (void)state;
  rt_pass_context_t *ctx = NULL;
  assert_ok(rt_pass_context_create(&ctx));
  assert_ok(rt_pass_context_set_config(ctx, "vm.specialize", "needed"));
  int64_t v = -1;
  assert_ok(rt_pass_context_config_int(ctx, "vm.specialize", &v));
  assert_int_equal(v, RT_VM_SPECIALIZE_NEEDED);
  assert_status(rt_pass_context_set_config(ctx, "vm.specialize", "sometimes"),
                INVALID_ARGUMENT, "vm.specialize");
  rt_module_t *m = vm_test_parse(kModel);
  rt_executor_t *vm = NULL, *ref = NULL;
  assert_ok(rt_create_executor("vm", m, NULL, ctx, NULL, &vm));
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  for (int64_t n = 1; n <= 3; ++n) {
    rt_tensor_t *ins[3];
    vm_test_inputs(ref, n, ins);
    vm_test_compare(vm, ref, ins, "vm.specialize=needed");
    vm_test_release_inputs(ref, ins);
  }
  rt_executor_release(vm);
  rt_executor_release(ref);
  rt_module_release(m);
  rt_pass_context_release(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modes_pick_kernels),
      cmocka_unit_test(test_cache_per_shape),
      cmocka_unit_test(test_two_threads_share_the_cache),
      cmocka_unit_test(test_config_key),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
