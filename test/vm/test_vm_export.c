/* The vm executor exported (`relayrt build MODEL --executor vm --emit=so`,
 * rt_executor_export) and run by the runtime-only library: a program with
 * recursion, mutual recursion and If on tensor conditions, and a `?`-batch
 * MLP run at several batch sizes in one runtime, each built with the full
 * library, loaded and run by vm_host (a binary linked with
 * librelayrt_runtime alone) and compared with the reference interpreter
 * ("debug"); the same through the in-process loader; input checks against
 * `?` signatures; truncated, corrupted and wrong-version files rejected
 * with clear errors. Files go to a temporary folder. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt/artifact.h"
#include "vm_test_util.h"
#include "runtime/mem.h"

static char g_dir[256];

static void path_in(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", g_dir, name); }

static int setup(void **state) {
  (void)state;
  snprintf(g_dir, sizeof g_dir, "/tmp/relayrt-vm-export-XXXXXX");
  return mkdtemp(g_dir) ? 0 : 1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : 1;
}

static const char kControl[] =
    "def @fact(%n: int32) -> int32 {\n"
    "  if (less_equal(%n, 1)) { 1 } else { multiply(%n, @fact(subtract(%n, 1))) }\n"
    "}\n"
    "def @is_even(%n: int32) -> bool {\n"
    "  if (equal(%n, 0)) { True } else { @is_odd(subtract(%n, 1)) }\n"
    "}\n"
    "def @is_odd(%n: int32) -> bool {\n"
    "  if (equal(%n, 0)) { False } else { @is_even(subtract(%n, 1)) }\n"
    "}\n"
    "def @step(%i: int32, %acc: Tensor[(16), float32], %x: Tensor[(16), float32]) -> "
    "Tensor[(16), float32] {\n"
    "  if (equal(%i, 0)) { %acc } else {\n"
    "    let %next = if (greater(sum(%acc), 4f)) { multiply(%acc, 0.5f) } "
    "else { add(%acc, abs(%x)) };\n"
    "    @step(subtract(%i, 1), %next, %x)\n"
    "  }\n"
    "}\n"
    "def @main(%n: int32, %x: Tensor[(16), float32]) -> (int32, bool, Tensor[(16), float32]) {\n"
    "  (@fact(add(%n, 4)), @is_even(add(%n, 7)), @step(add(%n, 17), %x, %x))\n"
    "}\n";

static const char kBatch[] =
    "def @main(%x: Tensor[(?, 8), float32], %w1: Tensor[(16, 8), float32], "
    "%b1: Tensor[(16), float32], %w2: Tensor[(4, 16), float32]) -> Tensor[(?, 4), float32] {\n"
    "  let %h = nn.relu(nn.bias_add(nn.dense(%x, %w1, units=16), %b1));\n"
    "  nn.softmax(nn.dense(%h, %w2, units=4), axis=-1)\n"
    "}\n";

/* Builds `body` with the vm executor and exports it to g_dir/NAME.so;
 * NULL (the test skips) when the JIT refuses a kernel. */
static rt_module_t *export_program(const char *body, const char *name, char *so, size_t n) {
  rt_module_t *m = vm_test_parse(body);
  rt_executor_t *vm = NULL;
  rt_status_t st = rt_create_executor("vm", m, NULL, NULL, NULL, &vm);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    printf("[ BLOCKED  ] %s: %s\n", name, rt_status_message(st));
    rt_status_free(st);
    rt_module_release(m);
    return NULL;
  }
  assert_ok(st);
  char file[128];
  snprintf(file, sizeof file, "%s.so", name);
  path_in(so, n, file);
  assert_ok(rt_executor_export(vm, so));
  rt_executor_release(vm);
  return m;
}

/* Runs vm_host on `so` with `runs` groups of inputs; returns its exit code,
 * its output (stdout + stderr) in `log`. */
static int run_host(const char *so, int32_t ni, int32_t runs, char *log, size_t logn) {
  const char *host = getenv("RT_VM_HOST_EXE");
  assert_non_null(host);
  char cmd[8192];
  int len = snprintf(cmd, sizeof cmd, "'%s' '%s' '%s'", host, so, g_dir);
  for (int32_t r = 0; r < runs; ++r) {
    for (int32_t i = 0; i < ni; ++i) {
      len += snprintf(cmd + len, sizeof cmd - (size_t)len, " '%s/in%d_%d.npy'", g_dir, (int)r, (int)i);
    }
  }
  snprintf(cmd + len, sizeof cmd - (size_t)len, " 2>&1");
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  size_t got = fread(log, 1, logn - 1, p);
  log[got] = '\0';
  int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* The program under debug at each `?` size, then exported and run by
 * vm_host (one runtime, every size) and by the in-process loader; every
 * output must match the interpreter's. */
static void check_exported(const char *body, const char *name, int32_t nsizes, const int64_t *sizes) {
  char so[512];
  rt_module_t *m = export_program(body, name, so, sizeof so);
  if (!m) skip();
  rt_executor_t *ref = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  int32_t ni = rt_executor_num_inputs(ref), no = rt_executor_num_outputs(ref);
  rt_tensor_t *inputs[16][16], *want[16][16];
  assert_true(nsizes <= 16 && ni <= 16 && no <= 16);
  for (int32_t s = 0; s < nsizes; ++s) {
    vm_test_inputs(ref, sizes[s], inputs[s]);
    for (int32_t i = 0; i < ni; ++i) {
      char p[512], f[64];
      snprintf(f, sizeof f, "in%d_%d.npy", (int)s, (int)i);
      path_in(p, sizeof p, f);
      assert_ok(rt_npy_write_file(inputs[s][i], p));
      assert_ok(rt_executor_set_input(ref, i, inputs[s][i]));
    }
    assert_ok(rt_executor_run(ref));
    for (int32_t o = 0; o < no; ++o) {
      rt_tensor_t *t = NULL;
      assert_ok(rt_executor_get_output(ref, o, &t));
      assert_ok(rt_tensor_clone(rt_allocator_system(), t, &want[s][o]));
    }
  }
  /* The runtime-only host. */
  char log[4096];
  int rc = run_host(so, ni, nsizes, log, sizeof log);
  if (rc != 0) fail_msg("%s: vm_host exited %d: %s", name, rc, log);
  for (int32_t s = 0; s < nsizes; ++s) {
    for (int32_t o = 0; o < no; ++o) {
      char p[512], f[64], why[256];
      snprintf(f, sizeof f, "run%d_out%d.npy", (int)s, (int)o);
      path_in(p, sizeof p, f);
      rt_tensor_t *got = NULL;
      assert_ok(rt_npy_read_file(rt_allocator_system(), p, &got));
      if (!vm_test_tensors_close(got, want[s][o], why, sizeof why)) {
        fail_msg("%s (size %lld) output %d from vm_host: %s", name, (long long)sizes[s], (int)o, why);
      }
      rt_tensor_release(got);
    }
  }
  /* The in-process loader, two runtimes from one artifact. */
  rt_artifact_t *a = NULL;
  assert_ok(rt_artifact_load(so, &a));
  assert_int_equal(rt_artifact_num_inputs(a), ni);
  assert_int_equal(rt_artifact_num_outputs(a), no);
  for (int32_t threads = 1; threads <= 2; ++threads) {
    rt_artifact_runtime_t *r = NULL;
    assert_ok(rt_artifact_runtime_create(a, threads, &r));
    rt_tensor_t *o0 = NULL;
    assert_status(rt_artifact_runtime_output(r, 0, &o0), FAILED_PRECONDITION, "run the model first");
    assert_status(rt_artifact_runtime_run(r), FAILED_PRECONDITION, "is not set");
    for (int32_t s = 0; s < nsizes; ++s) {
      for (int32_t i = 0; i < ni; ++i) assert_ok(rt_artifact_runtime_set_input(r, i, inputs[s][i]));
      assert_ok(rt_artifact_runtime_run(r));
      for (int32_t o = 0; o < no; ++o) {
        rt_tensor_t *got = NULL;
        char why[256];
        assert_ok(rt_artifact_runtime_output(r, o, &got));
        if (!vm_test_tensors_close(got, want[s][o], why, sizeof why)) {
          fail_msg("%s (size %lld) output %d in process: %s", name, (long long)sizes[s], (int)o, why);
        }
      }
    }
    rt_artifact_runtime_release(r);
  }
  rt_artifact_release(a);
  for (int32_t s = 0; s < nsizes; ++s) {
    vm_test_release_inputs(ref, inputs[s]);
    for (int32_t o = 0; o < no; ++o) rt_tensor_release(want[s][o]);
  }
  rt_executor_release(ref);
  rt_module_release(m);
}

static void test_vm_export_control_flow(void **state) {
  (void)state;
  static const int64_t sizes[] = {1, 1};
  check_exported(kControl, "control", 2, sizes);
}

static void test_vm_export_dynamic_batch(void **state) {
  (void)state;
  static const int64_t sizes[] = {1, 5, 17, 64, 2};
  check_exported(kBatch, "batch", 5, sizes);
}

/* Reshape with a data-dependent shape (x of (n, 6) viewed as (6, n), the
 * target computed at run time) in a runtime-only host: ReshapeDyn needs no
 * compiler, and the kernel after it sizes its output by its recipe. */
static void test_vm_export_dyn_reshape(void **state) {
  (void)state;
  static const int64_t sizes[] = {1, 4, 9};
  check_exported("def @main(%x: Tensor[(?, 6), float32]) -> Tensor[(?, ?), float32] {\n"
                 "  let %t = reverse(shape_of(%x, dtype=\"int64\"), axis=0);\n"
                 "  nn.relu(dyn.reshape(%x, %t))\n"
                 "}\n",
                 "dyn_reshape", 3, sizes);
}

/* A kernel whose recipe ties its `?` dims (broadcast add): equal sizes run
 * runtime-only; sizes only the type relations can size (1 against 4,
 * broadcasting) are a clear FAILED_PRECONDITION there, naming the kernel,
 * while the full library's vm falls back to its host shape function. */
static void test_vm_export_tied_recipe(void **state) {
  (void)state;
  static const char body[] =
      "def @main(%x: Tensor[(?, 8), float32], %y: Tensor[(?, 8), float32]) -> Tensor[(?, 8), float32] {\n"
      "  add(%x, %y)\n"
      "}\n";
  static const int64_t sizes[] = {3, 1};
  check_exported(body, "tied", 2, sizes);
  char so[512];
  path_in(so, sizeof so, "tied.so");
  rt_artifact_t *a = NULL;
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_load(so, &a));
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  int64_t s1[2] = {1, 8}, s4[2] = {4, 8};
  rt_tensor_t *x = NULL, *y = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, s1, &x));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, s4, &y));
  rt_tensor_fill_random(x, 1);
  rt_tensor_fill_random(y, 2);
  assert_ok(rt_artifact_runtime_set_input(r, 0, x));
  assert_ok(rt_artifact_runtime_set_input(r, 1, y));
  assert_status(rt_artifact_runtime_run(r), FAILED_PRECONDITION,
                "its shape recipe does not cover these input shapes");
  rt_tensor_t *o = NULL;
  assert_status(rt_artifact_runtime_output(r, 0, &o), FAILED_PRECONDITION, "run the model first");
  /* The full library's vm runs it (host shape function) and agrees with
   * the interpreter. */
  rt_module_t *m = vm_test_parse(body);
  rt_executor_t *vm = NULL, *ref = NULL;
  assert_ok(rt_create_executor("vm", m, NULL, NULL, NULL, &vm));
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ref));
  rt_tensor_t *in[2] = {x, y};
  vm_test_compare(vm, ref, in, "tied broadcast");
  rt_executor_release(vm);
  rt_executor_release(ref);
  rt_module_release(m);
  rt_tensor_release(x);
  rt_tensor_release(y);
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);
}

static void test_vm_export_signature(void **state) {
  (void)state;
  char so[512];
  rt_module_t *m = export_program(kBatch, "sig", so, sizeof so);
  if (!m) skip();
  rt_module_release(m);
  rt_artifact_t *a = NULL;
  assert_ok(rt_artifact_load(so, &a));
  rt_tensor_info_t io;
  assert_ok(rt_artifact_input_info(a, 0, &io));
  assert_string_equal(io.name, "x");
  assert_int_equal(io.rank, 2);
  assert_int_equal(io.shape[0], -1);
  assert_int_equal(io.shape[1], 8);
  assert_ok(rt_artifact_output_info(a, 0, &io));
  assert_string_equal(io.name, "output_0");
  assert_int_equal(io.shape[0], -1);
  assert_int_equal(io.shape[1], 4);
  int32_t idx = -1;
  assert_ok(rt_artifact_input_index(a, "w2", &idx));
  assert_int_equal(idx, 3);
  assert_status(rt_artifact_input_index(a, "nope", &idx), NOT_FOUND, "inputs: x, w1, b1, w2");
  assert_status(rt_artifact_input_info(a, 4, &io), OUT_OF_RANGE, NULL);
  rt_artifact_runtime_t *r = NULL;
  assert_ok(rt_artifact_runtime_create(a, 1, &r));
  int64_t shape[2] = {3, 7};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), (rt_dtype_t){kDLFloat, 32, 1}, 2, shape, &t));
  assert_status(rt_artifact_runtime_set_input(r, 0, t), INVALID_ARGUMENT,
                "input 'x' expects Tensor[(?, 8), float32], got Tensor[(3, 7), float32]");
  assert_status(rt_artifact_runtime_set_input(r, 9, t), OUT_OF_RANGE, NULL);
  assert_status(rt_artifact_runtime_set_input(r, 0, NULL), INVALID_ARGUMENT, "NULL");
  rt_tensor_release(t);
  rt_artifact_runtime_release(r);
  rt_artifact_release(a);
}

/* ---- corrupt files ---------------------------------------------------------- */

/* FNV-1a 64 (the descriptor's checksum; written out here, not taken from
 * the library, so the test does not trust the code it checks). */
static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

static void test_vm_export_corrupt(void **state) {
  (void)state;
  char so[512];
  rt_module_t *m = export_program(kControl, "corrupt", so, sizeof so);
  if (!m) skip();
  rt_module_release(m);
  size_t n = 0;
  unsigned char *orig = (unsigned char *)rt_test_read_file(so, &n);
  unsigned char *b = rt_mem_alloc((size_t)n);
  assert_non_null(b);
  char p[512], log[4096];
  rt_artifact_t *a = NULL;
  /* Truncated. */
  path_in(p, sizeof p, "vm_truncated.so");
  rt_test_write_file(p, orig, n / 2);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "cannot load the model library");
  /* The plan: "RTVMART1", the signature, u64 size, the executable. */
  long plan = rt_test_find_bytes(orig, n, "RTVMART1", 8);
  long exe = rt_test_find_bytes(orig, n, "RTVMEXE", 8);
  assert_true(plan > 0 && exe > plan);
  uint64_t exe_size = le64(orig + exe - 8);
  size_t plan_size = (size_t)(exe - plan) + (size_t)exe_size;
  uint64_t sum = fnv(orig + plan, plan_size);
  unsigned char sum_bytes[8];
  for (int i = 0; i < 8; ++i) sum_bytes[i] = (unsigned char)(sum >> (8 * i));
  long sum_at = rt_test_find_bytes(orig, n, sum_bytes, 8);
  assert_true(sum_at > 0);
  /* A flipped byte inside the bytecode: the checksum catches it. */
  memcpy(b, orig, (size_t)n);
  b[exe + (long)exe_size - 12] ^= 0x5a;
  path_in(p, sizeof p, "vm_flipped.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "checksum mismatch");
  /* Another VM format version, checksum fixed up: the version check names it. */
  memcpy(b, orig, (size_t)n);
  b[exe + 8] = 99;
  uint64_t fixed = fnv(b + plan, plan_size);
  for (int i = 0; i < 8; ++i) b[sum_at + i] = (unsigned char)(fixed >> (8 * i));
  path_in(p, sizeof p, "vm_version.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "VM executable format version 99");
  assert_int_equal(run_host(p, 0, 0, log, sizeof log), 1);
  assert_non_null(strstr(log, "format version 99"));
  /* Bytecode that fails validation, checksum fixed: the word before the
   * end marker is operand D of the last function's last instruction, a
   * Ret or Goto, where it must be 0. */
  memcpy(b, orig, (size_t)n);
  b[exe + (long)exe_size - 12] = 7;
  fixed = fnv(b + plan, plan_size);
  for (int i = 0; i < 8; ++i) b[sum_at + i] = (unsigned char)(fixed >> (8 * i));
  path_in(p, sizeof p, "vm_invalid.so");
  rt_test_write_file(p, b, n);
  assert_status(rt_artifact_load(p, &a), DATA_LOSS, "invalid VM executable");
  rt_mem_free(b);
  rt_mem_free(orig);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vm_export_control_flow),
      cmocka_unit_test(test_vm_export_dynamic_batch),
      cmocka_unit_test(test_vm_export_dyn_reshape),
      cmocka_unit_test(test_vm_export_tied_recipe),
      cmocka_unit_test(test_vm_export_signature),
      cmocka_unit_test(test_vm_export_corrupt),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
