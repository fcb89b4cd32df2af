/* The "vm" executor against the "debug" executor: the programs it is for
 * (recursion, mutual recursion, tail-recursive loops over tensors,
 * closures returned and called later, If on tensor conditions in a loop,
 * dynamic batch and sequence length), every corpus program with tensor
 * inputs, the call depth limit, invoke of any global, --emit=vm's
 * disassembly, and the static path allocating nothing per run.
 *
 * The JIT does not lower every op or `?` dims yet; where it refuses a
 * group the vm must fail with the JIT's UNIMPLEMENTED (named), and the test
 * reports the program as blocked instead of failing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/vm_compile.h"
#include "runtime/vm.h"
#include "vm_test_util.h"
#include "runtime/mem.h"

/* Creates the vm executor, or returns NULL (printing why) when the JIT
 * refuses a kernel with UNIMPLEMENTED. */
static rt_executor_t *vm_exec_or_blocked(rt_module_t *m, const char *what) {
  rt_executor_t *ex = NULL;
  rt_status_t st = rt_create_executor("vm", m, NULL, NULL, NULL, &ex);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    printf("[ BLOCKED  ] %s: %s\n", what, rt_status_message(st));
    rt_status_free(st);
    return NULL;
  }
  assert_ok(st);
  return ex;
}

static rt_executor_t *debug_exec(rt_module_t *m) {
  rt_executor_t *ex = NULL;
  assert_ok(rt_create_executor("debug", m, NULL, NULL, NULL, &ex));
  return ex;
}

/* Runs `body` under vm and debug with seeded inputs at each `?` size. */
static void check_program(const char *body, const char *what, int32_t nsizes, const int64_t *sizes) {
  rt_module_t *m = vm_test_parse(body);
  rt_executor_t *vm = vm_exec_or_blocked(m, what);
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  rt_executor_t *ref = debug_exec(m);
  for (int32_t s = 0; s < nsizes; ++s) {
    rt_tensor_t *inputs[64];
    vm_test_inputs(ref, sizes[s], inputs);
    vm_test_compare(vm, ref, inputs, what);
    vm_test_release_inputs(ref, inputs);
  }
  rt_executor_release(vm);
  rt_executor_release(ref);
  rt_module_release(m);
}

static const int64_t kOne[] = {3};

static void test_vm_factorial(void **state) {
  (void)state;
  check_program("def @fact(%n: int32) -> int32 {\n"
                "  if (less_equal(%n, 1)) { 1 } else { multiply(%n, @fact(subtract(%n, 1))) }\n"
                "}\n"
                "def @main(%n: int32) -> int32 { @fact(add(%n, 4)) }\n",
                "factorial", 1, kOne);
}

static void test_vm_fibonacci(void **state) {
  (void)state;
  check_program("def @fib(%n: int32) -> int32 {\n"
                "  if (less(%n, 2)) { %n } else {\n"
                "    add(@fib(subtract(%n, 1)), @fib(subtract(%n, 2)))\n"
                "  }\n"
                "}\n"
                "def @main(%n: int32) -> int32 { @fib(add(%n, 8)) }\n",
                "fibonacci", 1, kOne);
}

static void test_vm_tail_loop(void **state) {
  (void)state;
  /* A loop as tail recursion over a tensor: acc = acc * 0.5 + x, 12 times. */
  check_program("def @loop(%i: int32, %acc: Tensor[(4, 8), float32], %x: Tensor[(4, 8), float32])"
                " -> Tensor[(4, 8), float32] {\n"
                "  if (greater_equal(%i, 12)) { %acc } else {\n"
                "    @loop(add(%i, 1), add(multiply(%acc, 0.5f), %x), %x)\n"
                "  }\n"
                "}\n"
                "def @main(%x: Tensor[(4, 8), float32]) -> Tensor[(4, 8), float32] {\n"
                "  @loop(0, zeros_like(%x), %x)\n"
                "}\n",
                "tail loop", 1, kOne);
}

static void test_vm_mutual_recursion(void **state) {
  (void)state;
  check_program("def @is_even(%n: int32) -> bool {\n"
                "  if (equal(%n, 0)) { True } else { @is_odd(subtract(%n, 1)) }\n"
                "}\n"
                "def @is_odd(%n: int32) -> bool {\n"
                "  if (equal(%n, 0)) { False } else { @is_even(subtract(%n, 1)) }\n"
                "}\n"
                "def @main(%n: int32) -> (bool, bool) {\n"
                "  (@is_even(add(%n, 10)), @is_odd(add(%n, 7)))\n"
                "}\n",
                "mutual recursion", 1, kOne);
}

static void test_vm_closures(void **state) {
  (void)state;
  /* Closures made in one function, kept in a tuple, called later. */
  check_program("def @make_scaler(%s: Tensor[(3), float32]) -> fn (Tensor[(3), float32]) -> "
                "Tensor[(3), float32] {\n"
                "  fn (%v: Tensor[(3), float32]) -> Tensor[(3), float32] { multiply(%v, %s) }\n"
                "}\n"
                "def @apply(%f: fn (Tensor[(3), float32]) -> Tensor[(3), float32], "
                "%v: Tensor[(3), float32]) -> Tensor[(3), float32] { %f(%v) }\n"
                "def @main(%a: Tensor[(3), float32], %b: Tensor[(3), float32]) -> "
                "(Tensor[(3), float32], Tensor[(3), float32]) {\n"
                "  let %fs = (@make_scaler(%a), @make_scaler(%b));\n"
                "  let %y = @apply(%fs.0, %b);\n"
                "  (%y, %fs.1(%y))\n"
                "}\n",
                "closures", 1, kOne);
}

static void test_vm_if_in_loop(void **state) {
  (void)state;
  /* Each step halves the tensor if its sum is large, else adds x. */
  check_program("def @step(%i: int32, %acc: Tensor[(16), float32], %x: Tensor[(16), float32]) -> "
                "Tensor[(16), float32] {\n"
                "  if (equal(%i, 0)) { %acc } else {\n"
                "    let %next = if (greater(sum(%acc), 4f)) { multiply(%acc, 0.5f) } "
                "else { add(%acc, abs(%x)) };\n"
                "    @step(subtract(%i, 1), %next, %x)\n"
                "  }\n"
                "}\n"
                "def @main(%x: Tensor[(16), float32]) -> Tensor[(16), float32] {\n"
                "  @step(20, %x, %x)\n"
                "}\n",
                "if in a loop", 1, kOne);
}

static void test_vm_if_branches_of_different_shapes(void **state) {
  (void)state;
  /* The branches compute (2, 1) and (2, 4): the if is (2, ?) (their join);
   * the conditions come from a scalar input (n is 1..5), one of each. */
  check_program("def @pick(%c: bool, %x: Tensor[(2, 4), float32]) {\n"
                "  if (%c) { sum(%x, axis=[1], keepdims=True) } else { multiply(%x, 2f) }\n"
                "}\n"
                "def @main(%n: int32, %x: Tensor[(2, 4), float32]) {\n"
                "  (@pick(greater(%n, 0), %x), @pick(less(%n, 0), %x))\n"
                "}\n",
                "if with branches of different shapes", 1, kOne);
}

static void test_vm_dynamic_batch(void **state) {
  (void)state;
  static const int64_t sizes[] = {1, 5, 17, 2};
  check_program("def @main(%x: Tensor[(?, 8), float32], %w: Tensor[(4, 8), float32], "
                "%b: Tensor[(4), float32]) -> Tensor[(?, 4), float32] {\n"
                "  nn.relu(nn.bias_add(nn.dense(%x, %w, units=4), %b))\n"
                "}\n",
                "dynamic batch", 4, sizes);
}

static void test_vm_dynamic_sequence(void **state) {
  (void)state;
  static const int64_t sizes[] = {3, 11, 1};
  check_program("def @main(%x: Tensor[(1, ?, 16), float32], %w: Tensor[(16, 16), float32]) -> "
                "Tensor[(1, ?, 16), float32] {\n"
                "  nn.softmax(nn.dense(%x, %w, units=16), axis=-1)\n"
                "}\n",
                "dynamic sequence length", 3, sizes);
}

static void test_vm_depth_limit(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse("def @down(%n: int32) -> int32 {\n"
                                 "  if (equal(%n, 0)) { 0 } else { add(@down(subtract(%n, 1)), 1) }\n"
                                 "}\n"
                                 "def @main(%n: int32) -> int32 { @down(%n) }\n");
  rt_executor_t *vm = vm_exec_or_blocked(m, "depth limit");
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  rt_tensor_t *n = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 0, NULL, &n));
  *(int32_t *)rt_tensor_data(n) = 1000000;
  assert_ok(rt_executor_set_input(vm, 0, n));
  assert_status(rt_executor_run(vm), RESOURCE_EXHAUSTED, "call depth limit");
  /* The VM recovers: a shallow call still works. */
  *(int32_t *)rt_tensor_data(n) = 100;
  assert_ok(rt_executor_set_input(vm, 0, n));
  assert_ok(rt_executor_run(vm));
  rt_tensor_t *out = NULL;
  assert_ok(rt_executor_get_output(vm, 0, &out));
  assert_int_equal(*(int32_t *)rt_tensor_data(out), 100);
  rt_tensor_release(n);
  rt_executor_release(vm);
  rt_module_release(m);
}

static void test_vm_invoke_and_source(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse("def @sq(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {\n"
                                 "  multiply(%x, %x)\n"
                                 "}\n"
                                 "def @main(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {\n"
                                 "  @sq(add(%x, 1f))\n"
                                 "}\n");
  rt_executor_t *vm = vm_exec_or_blocked(m, "invoke");
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  rt_tensor_t *x = NULL;
  int64_t shape[1] = {4};
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, shape, &x));
  float *xd = rt_tensor_data(x);
  for (int i = 0; i < 4; ++i) xd[i] = (float)i;
  rt_tensor_t *out[2] = {NULL, NULL};
  int32_t n = 0;
  assert_ok(rt_executor_invoke(vm, "@sq", 1, &x, 2, out, &n));
  assert_int_equal(n, 1);
  assert_true(((float *)rt_tensor_data(out[0]))[3] == 9.0f);
  rt_tensor_release(out[0]);
  assert_status(rt_executor_invoke(vm, "nope", 1, &x, 2, out, &n), NOT_FOUND, "@nope");
  assert_status(rt_executor_invoke(vm, "sq", 0, NULL, 2, out, &n), INVALID_ARGUMENT, "takes 1");
  char *text = NULL;
  assert_ok(rt_executor_get_source(vm, "vm", &text));
  assert_non_null(strstr(text, "@main"));
  assert_non_null(strstr(text, "InvokeKernel"));
  assert_non_null(strstr(text, "Invoke "));
  assert_non_null(strstr(text, "Ret"));
  free(text);
  rt_tensor_release(x);
  rt_executor_release(vm);
  rt_module_release(m);
}

/* m built for the vm (the shared pipeline and the vm's own steps) and a
 * JIT session to compile it with; the caller releases all three. */
static void build_for_vm(rt_module_t *m, rt_module_t **built, rt_module_t **prepared,
                         rt_jit_session_t **jit) {
  assert_ok(rt_build(m, NULL, "vm", built, NULL));
  assert_ok(rt_vm_prepare_module(*built, NULL, prepared));
  assert_ok(rt_jit_session_create(rt_allocator_system(), jit));
}

/* A static MLP through the VM directly: the second run takes nothing from
 * the system allocator and makes no frame. */
static void test_vm_static_allocates_nothing(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse(
      "def @main(%x: Tensor[(8, 32), float32], %w1: Tensor[(64, 32), float32], "
      "%w2: Tensor[(64, 64), float32], %w3: Tensor[(10, 64), float32]) {\n"
      "  %0 = nn.relu(nn.dense(%x, %w1, units=64));\n"
      "  %1 = nn.relu(nn.dense(%0, %w2, units=64));\n"
      "  nn.dense(%1, %w3, units=10)\n"
      "}\n");
  rt_module_t *built = NULL, *prepared = NULL;
  rt_jit_session_t *jit = NULL;
  build_for_vm(m, &built, &prepared, &jit);
  rt_vm_build_t b;
  rt_status_t st = rt_vm_compile(prepared, jit, 0, RT_VM_SPECIALIZE_AUTO, &b);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    printf("[ BLOCKED  ] mlp: %s\n", rt_status_message(st));
    rt_status_free(st);
    rt_jit_session_release(jit);
    rt_module_release(prepared);
    rt_module_release(built);
    rt_module_release(m);
    skip();
  }
  assert_ok(st);
  /* Every intermediate of main is planned. */
  int32_t main_index = 0;
  assert_ok(rt_vm_executable_lookup(&b.exe, "main", &main_index));
  const rt_vm_function_t *fn = &b.exe.functions[main_index];
  int32_t planned = 0;
  for (int32_t i = 0; i < fn->num_slots; ++i) planned += fn->slots[i].offset >= 0;
  assert_int_equal(planned, fn->num_slots - 1); /* all but the result */
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), &b.exe, b.kernels, NULL, NULL, &vm));
  rt_vm_value_t args[4];
  int64_t shapes[4][2] = {{8, 32}, {64, 32}, {64, 64}, {10, 64}};
  for (int i = 0; i < 4; ++i) {
    rt_tensor_t *t = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shapes[i], &t));
    rt_tensor_fill_random(t, (uint64_t)i);
    args[i] = rt_vm_value_of_tensor(t);
  }
  rt_vm_stats_t s1, s2;
  for (int run = 0; run < 3; ++run) {
    rt_vm_value_t out;
    assert_ok(rt_vm_invoke(vm, main_index, 4, args, &out));
    rt_vm_value_release(out);
    if (run == 0) rt_vm_stats(vm, &s1);
  }
  rt_vm_stats(vm, &s2);
  assert_int_equal(s1.pool_misses, s2.pool_misses);
  assert_int_equal(s1.frames_created, s2.frames_created);
  for (int i = 0; i < 4; ++i) rt_vm_value_release(args[i]);
  rt_vm_release(vm);
  rt_vm_build_deinitialize(&b);
  rt_jit_session_release(jit);
  rt_module_release(prepared);
  rt_module_release(built);
  rt_module_release(m);
}

/* Host ops (backend/vm_host.c): a list built, read and concatenated, the
 * concat feeding a JIT kernel. The disassembly names the host ops; the
 * executable cannot be serialized; a VM without a host to call fails
 * with a status naming the op. Values by hand. */
static void test_vm_host_ops(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse(
      "def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n"
      "  %0 = list.construct((%x, %y));\n"
      "  %1 = list.insert(%0, %x, -1);\n"
      "  (add(list.concat(%1, axis=0), 1f), list.length(%1), list.at(%1, 1))\n"
      "}\n");
  rt_module_t *built = NULL, *prepared = NULL;
  rt_jit_session_t *jit = NULL;
  build_for_vm(m, &built, &prepared, &jit);
  rt_vm_build_t b;
  assert_ok(rt_vm_compile(prepared, jit, 0, RT_VM_SPECIALIZE_AUTO, &b));
  assert_true(b.exe.num_host_ops >= 3);
  rt_strbuf_t text;
  rt_strbuf_initialize(&text);
  rt_vm_executable_disassemble(&b.exe, &text);
  assert_non_null(strstr(text.data, "InvokeHost"));
  assert_non_null(strstr(text.data, "fused_list_insert (host)"));
  rt_strbuf_deinitialize(&text);
  char *bytes = NULL;
  size_t size = 0;
  assert_status(rt_vm_executable_serialize(&b.exe, &bytes, &size), UNIMPLEMENTED,
                "the file format cannot carry them yet");
  int32_t main_index = 0;
  assert_ok(rt_vm_executable_lookup(&b.exe, "main", &main_index));
  const float xv[2] = {1, 2}, yv[3] = {10, 20, 30};
  int64_t n2 = 2, n3 = 3;
  rt_tensor_t *x = NULL, *y = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n2, &x));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n3, &y));
  memcpy(rt_tensor_data(x), xv, sizeof xv);
  memcpy(rt_tensor_data(y), yv, sizeof yv);
  rt_vm_value_t args[2] = {rt_vm_value_of_tensor(x), rt_vm_value_of_tensor(y)};
  /* No host: InvokeHost fails, naming the op. */
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), &b.exe, b.kernels, NULL, NULL, &vm));
  rt_vm_value_t out;
  assert_status(rt_vm_invoke(vm, main_index, 2, args, &out), FAILED_PRECONDITION,
                "this VM has no host to run it");
  rt_vm_release(vm);
  rt_vm_options_t opts = {0};
  opts.host_fn = rt_vm_run_host_op;
  opts.host_user = &b;
  opts.shape_fn = rt_vm_shape_function;
  opts.shape_user = &b;
  opts.resolve_fn = rt_vm_resolve_kernel;
  opts.resolve_user = &b;
  assert_ok(rt_vm_create(rt_allocator_system(), &b.exe, b.kernels, NULL, &opts, &vm));
  for (int run = 0; run < 2; ++run) {
    assert_ok(rt_vm_invoke(vm, main_index, 2, args, &out));
    assert_int_equal(out.kind, RT_VM_VALUE_TUPLE);
    assert_int_equal(out.object->count, 3);
    /* [x, x, y]: insert at -1 goes before the last element. */
    const rt_tensor_t *cat = out.object->fields[0].tensor;
    const float want[7] = {2, 3, 2, 3, 11, 21, 31};
    assert_int_equal(rt_tensor_shape(cat)[0], 7);
    for (int i = 0; i < 7; ++i) assert_true(((const float *)rt_tensor_data(cat))[i] == want[i]);
    assert_int_equal(*(const int64_t *)rt_tensor_data(out.object->fields[1].tensor), 3);
    /* list.at hands back the tensor given, not a copy. */
    assert_ptr_equal(out.object->fields[2].tensor, x);
    rt_vm_value_release(out);
  }
  rt_vm_release(vm);
  rt_tensor_release(x);
  rt_tensor_release(y);
  rt_vm_build_deinitialize(&b);
  rt_jit_session_release(jit);
  rt_module_release(prepared);
  rt_module_release(built);
  rt_module_release(m);
}

static rt_tensor_t *i64_vector(int32_t n, const int64_t *v) {
  int64_t shape[1] = {n};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT64, 1, shape, &t));
  memcpy(rt_tensor_data(t), v, (size_t)n * sizeof(int64_t));
  return t;
}

/* x[i] = i over an (rows, cols) float32 tensor. */
static rt_tensor_t *iota2(int64_t rows, int64_t cols) {
  int64_t shape[2] = {rows, cols};
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &t));
  for (int64_t i = 0; i < rows * cols; ++i) ((float *)rt_tensor_data(t))[i] = (float)i;
  return t;
}

/* Reshape with a data-dependent shape: the target is computed at run time
 * from shape_of(x) and two input vectors, (2n, 3) for x of (n, 6); the
 * reshaped tensor then feeds a dynamic kernel. Expected values by hand:
 * element i is (i + 1) * 2 whatever the shape. */
static void test_vm_dyn_reshape_computed(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse(
      "def @main(%x: Tensor[(?, 6), float32], %a: Tensor[(2), int64], %b: Tensor[(2), int64]) -> "
      "Tensor[(?, ?), float32] {\n"
      "  let %t = floor_divide(multiply(shape_of(%x, dtype=\"int64\"), %a), %b);\n"
      "  let %y = dyn.reshape(add(%x, 1f), %t);\n"
      "  multiply(%y, 2f)\n"
      "}\n");
  rt_executor_t *vm = vm_exec_or_blocked(m, "dyn.reshape");
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  rt_executor_t *ref = debug_exec(m);
  char *text = NULL;
  assert_ok(rt_executor_get_source(vm, "vm", &text));
  assert_non_null(strstr(text, "ReshapeDyn"));
  free(text);
  static const int64_t a[2] = {2, 1}, b[2] = {1, 2};
  rt_tensor_t *ta = i64_vector(2, a), *tb = i64_vector(2, b);
  static const int64_t rows[] = {1, 5, 8, 3};
  for (size_t k = 0; k < RT_COUNTOF(rows); ++k) {
    rt_tensor_t *in[3] = {iota2(rows[k], 6), ta, tb};
    vm_test_compare(vm, ref, in, "dyn.reshape");
    rt_tensor_t *out = NULL;
    assert_ok(rt_executor_get_output(vm, 0, &out));
    assert_int_equal(rt_tensor_rank(out), 2);
    assert_int_equal(rt_tensor_shape(out)[0], 2 * rows[k]);
    assert_int_equal(rt_tensor_shape(out)[1], 3);
    for (int64_t i = 0; i < 6 * rows[k]; ++i) {
      assert_true(((float *)rt_tensor_data(out))[i] == (float)((i + 1) * 2));
    }
    rt_tensor_release(in[0]);
  }
  /* A target that does not fit: a clear error from both, then recovery. */
  static const int64_t bad[2] = {3, 1};
  rt_tensor_t *tbad = i64_vector(2, bad);
  rt_tensor_t *x = iota2(5, 6);
  rt_tensor_t *in[3] = {x, tbad, tb};
  for (int e = 0; e < 2; ++e) {
    rt_executor_t *ex = e ? ref : vm;
    for (int i = 0; i < 3; ++i) assert_ok(rt_executor_set_input(ex, i, in[i]));
    assert_status(rt_executor_run(ex), INVALID_ARGUMENT, e ? "reshape" : "dyn.reshape: cannot view 30");
  }
  assert_ok(rt_executor_set_input(vm, 1, ta));
  assert_ok(rt_executor_run(vm));
  rt_tensor_release(x);
  rt_tensor_release(tbad);
  rt_tensor_release(ta);
  rt_tensor_release(tb);
  rt_executor_release(vm);
  rt_executor_release(ref);
  /* The graph executor refuses it, naming the vm. */
  rt_executor_t *g = NULL;
  assert_status(rt_create_executor("graph", m, NULL, NULL, NULL, &g), INVALID_ARGUMENT, "vm");
  rt_module_release(m);
}

static rt_tensor_t *f32_scalar(float v) {
  rt_tensor_t *t = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 0, NULL, &t));
  *(float *)rt_tensor_data(t) = v;
  return t;
}

/* arange from run-time values (ONNX Range with graph inputs): its length
 * is known only from the values, which the vm's shape function reads.
 * Expected values by hand: ceil((stop - start) / step) elements of
 * 2 * (start + i * step). */
static void test_vm_arange_from_values(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse(
      "def @main(%a: float32, %b: float32, %c: float32) -> Tensor[(?), float32] {\n"
      "  multiply(arange(%a, %b, %c, dtype=\"float32\"), 2f)\n"
      "}\n");
  rt_executor_t *vm = vm_exec_or_blocked(m, "arange");
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  static const struct { float start, stop, step; int64_t n; float want[6]; } cases[] = {
      {0, 5, 1, 5, {0, 2, 4, 6, 8}},
      {3, -1, -1.5f, 3, {6, 3, 0}},
      {1, 2.5f, 0.25f, 6, {2, 2.5f, 3, 3.5f, 4, 4.5f}},
      {2, 2, 1, 0, {0}},
      {5, 0, 1, 0, {0}},
  };
  for (size_t k = 0; k < RT_COUNTOF(cases); ++k) {
    rt_tensor_t *in[3] = {f32_scalar(cases[k].start), f32_scalar(cases[k].stop),
                          f32_scalar(cases[k].step)};
    for (int i = 0; i < 3; ++i) assert_ok(rt_executor_set_input(vm, i, in[i]));
    assert_ok(rt_executor_run(vm));
    rt_tensor_t *out = NULL;
    assert_ok(rt_executor_get_output(vm, 0, &out));
    assert_int_equal(rt_tensor_rank(out), 1);
    assert_int_equal(rt_tensor_shape(out)[0], cases[k].n);
    for (int64_t i = 0; i < cases[k].n; ++i) {
      assert_true(((float *)rt_tensor_data(out))[i] == cases[k].want[i]);
    }
    for (int i = 0; i < 3; ++i) rt_tensor_release(in[i]);
  }
  /* step 0: a clear error, then the executor still runs. */
  rt_tensor_t *bad[3] = {f32_scalar(0), f32_scalar(1), f32_scalar(0)};
  for (int i = 0; i < 3; ++i) assert_ok(rt_executor_set_input(vm, i, bad[i]));
  assert_status(rt_executor_run(vm), INVALID_ARGUMENT, "step must not be 0");
  rt_tensor_t *one = f32_scalar(1);
  assert_ok(rt_executor_set_input(vm, 2, one));
  assert_ok(rt_executor_run(vm));
  for (int i = 0; i < 3; ++i) rt_tensor_release(bad[i]);
  rt_tensor_release(one);
  rt_executor_release(vm);
  rt_module_release(m);
}

/* dyn.reshape's codes (0 copies the dim, -1 is inferred) from an input. */
static void test_vm_dyn_reshape_codes(void **state) {
  (void)state;
  rt_module_t *m = vm_test_parse(
      "def @main(%x: Tensor[(?, 6), float32], %s: Tensor[(3), int64]) -> Tensor[(?, ?, ?), float32] {\n"
      "  nn.relu(dyn.reshape(%x, %s))\n"
      "}\n");
  rt_executor_t *vm = vm_exec_or_blocked(m, "dyn.reshape codes");
  if (!vm) {
    rt_module_release(m);
    skip();
  }
  rt_executor_t *ref = debug_exec(m);
  static const int64_t codes[3][3] = {{0, -1, 2}, {-1, 3, 2}, {2, 0, -1}};
  static const int64_t want[3][3] = {{4, 3, 2}, {4, 3, 2}, {2, 6, 2}};
  for (int k = 0; k < 3; ++k) {
    rt_tensor_t *in[2] = {iota2(4, 6), i64_vector(3, codes[k])};
    vm_test_compare(vm, ref, in, "dyn.reshape codes");
    rt_tensor_t *out = NULL;
    assert_ok(rt_executor_get_output(vm, 0, &out));
    for (int d = 0; d < 3; ++d) assert_int_equal(rt_tensor_shape(out)[d], want[k][d]);
    rt_tensor_release(in[0]);
    rt_tensor_release(in[1]);
  }
  static const int64_t two_minus[3] = {-1, -1, 2};
  rt_tensor_t *in[2] = {iota2(4, 6), i64_vector(3, two_minus)};
  for (int i = 0; i < 2; ++i) assert_ok(rt_executor_set_input(vm, i, in[i]));
  assert_status(rt_executor_run(vm), INVALID_ARGUMENT, "more than one -1");
  rt_tensor_release(in[0]);
  rt_tensor_release(in[1]);
  rt_executor_release(vm);
  rt_executor_release(ref);
  rt_module_release(m);
  /* The relation: newshape must be 1-d with a static length. */
  const char *bad = "#[version = \"0.0.5\"]\n"
                    "def @main(%x: Tensor[(4, 6), float32], %s: Tensor[(?), int64]) {\n"
                    "  dyn.reshape(%x, %s)\n"
                    "}\n";
  rt_module_t *mb = NULL;
  assert_status(rt_module_parse(bad, strlen(bad), "bad.relay", &mb), INVALID_ARGUMENT,
                "newshape must have a static length");
}

/* Every corpus program whose @main takes tensors: vm == debug. */
static void test_vm_corpus(void **state) {
  (void)state;
  const char *dir = rt_test_path("ir/corpus");
  char dirbuf[1024];
  snprintf(dirbuf, sizeof dirbuf, "%s", dir);
  DIR *d = opendir(dirbuf);
  assert_non_null(d);
  char *names[256];
  int32_t n = 0;
  struct dirent *ent;
  while ((ent = readdir(d)) && n < 256) {
    size_t len = strlen(ent->d_name);
    if (len > 6 && strcmp(ent->d_name + len - 6, ".relay") == 0) names[n++] = rt_mem_strdup(ent->d_name);
  }
  closedir(d);
  int32_t ran = 0, blocked = 0, not_tensor = 0;
  for (int32_t i = 0; i < n; ++i) {
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", dirbuf, names[i]);
    rt_module_t *m = NULL;
    assert_ok(rt_module_load(path, &m));
    rt_executor_t *ref = NULL;
    rt_status_t st = rt_create_executor("debug", m, NULL, NULL, NULL, &ref);
    if (st) {
      /* @main takes or returns something that is not a tensor. */
      rt_status_free(st);
      not_tensor++;
      rt_module_release(m);
      continue;
    }
    rt_executor_t *vm = vm_exec_or_blocked(m, names[i]);
    if (!vm) {
      blocked++;
    } else {
      rt_tensor_t *inputs[64];
      vm_test_inputs(ref, 3, inputs);
      vm_test_compare(vm, ref, inputs, names[i]);
      vm_test_release_inputs(ref, inputs);
      rt_executor_release(vm);
      ran++;
    }
    rt_executor_release(ref);
    rt_module_release(m);
  }
  printf("[ CORPUS   ] vm == debug on %d programs; %d blocked by the JIT; %d without tensor I/O\n",
         (int)ran, (int)blocked, (int)not_tensor);
  for (int32_t i = 0; i < n; ++i) rt_mem_free(names[i]);
  assert_true(ran > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vm_factorial),
      cmocka_unit_test(test_vm_fibonacci),
      cmocka_unit_test(test_vm_tail_loop),
      cmocka_unit_test(test_vm_mutual_recursion),
      cmocka_unit_test(test_vm_closures),
      cmocka_unit_test(test_vm_if_in_loop),
      cmocka_unit_test(test_vm_if_branches_of_different_shapes),
      cmocka_unit_test(test_vm_dynamic_batch),
      cmocka_unit_test(test_vm_dynamic_sequence),
      cmocka_unit_test(test_vm_depth_limit),
      cmocka_unit_test(test_vm_invoke_and_source),
      cmocka_unit_test(test_vm_static_allocates_nothing),
      cmocka_unit_test(test_vm_host_ops),
      cmocka_unit_test(test_vm_dyn_reshape_computed),
      cmocka_unit_test(test_vm_arange_from_values),
      cmocka_unit_test(test_vm_dyn_reshape_codes),
      cmocka_unit_test(test_vm_corpus),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
