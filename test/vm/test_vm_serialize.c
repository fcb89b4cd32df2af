/* The VM executable format and the runtime alone: a compiled executable
 * survives serialize -> deserialize (same disassembly, same results); bad
 * magic, another version, every truncation, a bad opcode, a register, jump
 * or slot out of range are DATA_LOSS before anything runs; and a hand-built
 * executable with a C kernel exercises the dynamic path (ShapeFunc through a
 * host shape function, AllocTensorReg), ShapeOf, ReshapeTensor, LoadConsti
 * and If, plus the clear error when no shape function is given. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/vm_compile.h"
#include "runtime/vm.h"
#include "vm_test_util.h"
#include "runtime/mem.h"

static const char kProgram[] =
    "def @fact(%n: int32) -> int32 {\n"
    "  if (less_equal(%n, 1)) { 1 } else { multiply(%n, @fact(subtract(%n, 1))) }\n"
    "}\n"
    "def @main(%x: Tensor[(2, 4), float32], %n: int32) -> (Tensor[(2, 4), float32], int32) {\n"
    "  (nn.relu(add(%x, %x)), @fact(%n))\n"
    "}\n";

typedef struct {
  rt_module_t *m, *built, *prepared;
  rt_jit_session_t *jit;
  rt_vm_build_t b;
  bool ok;
} compiled;

static void compile_program(compiled *c) {
  memset(c, 0, sizeof *c);
  c->m = vm_test_parse(kProgram);
  assert_ok(rt_build(c->m, NULL, "vm", &c->built, NULL));
  assert_ok(rt_vm_prepare_module(c->built, NULL, &c->prepared));
  assert_ok(rt_jit_session_create(rt_allocator_system(), &c->jit));
  rt_status_t st = rt_vm_compile(c->prepared, c->jit, 0, RT_VM_SPECIALIZE_AUTO, &c->b);
  if (st && rt_status_code(st) == RT_STATUS_UNIMPLEMENTED) {
    printf("[ BLOCKED  ] %s\n", rt_status_message(st));
    rt_status_free(st);
    return;
  }
  assert_ok(st);
  c->ok = true;
}

static void release_compiled(compiled *c) {
  if (c->ok) rt_vm_build_deinitialize(&c->b);
  rt_jit_session_release(c->jit);
  rt_module_release(c->prepared);
  rt_module_release(c->built);
  rt_module_release(c->m);
}

static void run_program(const rt_vm_executable_t *exe, const rt_kernel_fn *kernels, float *out4,
                        int32_t *out_fact) {
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), exe, kernels, NULL, NULL, &vm));
  int32_t main_index = 0;
  assert_ok(rt_vm_executable_lookup(exe, "main", &main_index));
  int64_t shape[2] = {2, 4};
  rt_tensor_t *x = NULL, *n = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &x));
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 0, NULL, &n));
  for (int i = 0; i < 8; ++i) ((float *)rt_tensor_data(x))[i] = (float)(i - 3);
  *(int32_t *)rt_tensor_data(n) = 6;
  rt_vm_value_t args[2] = {rt_vm_value_of_tensor(x), rt_vm_value_of_tensor(n)};
  rt_vm_value_t out;
  assert_ok(rt_vm_invoke(vm, main_index, 2, args, &out));
  assert_int_equal(out.kind, RT_VM_VALUE_TUPLE);
  memcpy(out4, rt_tensor_data(out.object->fields[0].tensor), 8 * sizeof(float));
  *out_fact = *(int32_t *)rt_tensor_data(out.object->fields[1].tensor);
  rt_vm_value_release(out);
  rt_tensor_release(x);
  rt_tensor_release(n);
  rt_vm_release(vm);
}

static void test_vm_serialize_round_trip(void **state) {
  (void)state;
  compiled c;
  compile_program(&c);
  if (!c.ok) {
    release_compiled(&c);
    skip();
  }
  char *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_vm_executable_serialize(&c.b.exe, &bytes, &size));
  rt_vm_executable_t back;
  assert_ok(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size,
                                         "round.vmx", &back));
  rt_strbuf_t a, b2;
  rt_strbuf_initialize(&a);
  rt_strbuf_initialize(&b2);
  rt_vm_executable_disassemble(&c.b.exe, &a);
  rt_vm_executable_disassemble(&back, &b2);
  assert_string_equal(a.data, b2.data);
  rt_strbuf_deinitialize(&a);
  rt_strbuf_deinitialize(&b2);
  float o1[8], o2[8];
  int32_t f1 = 0, f2 = 0;
  run_program(&c.b.exe, c.b.kernels, o1, &f1);
  run_program(&back, c.b.kernels, o2, &f2);
  assert_int_equal(f1, 720);
  assert_int_equal(f2, 720);
  assert_memory_equal(o1, o2, sizeof o1);
  assert_true(o1[7] == 8.0f && o1[0] == 0.0f);
  /* A second serialization of the loaded copy is byte-identical. */
  char *bytes2 = NULL;
  size_t size2 = 0;
  assert_ok(rt_vm_executable_serialize(&back, &bytes2, &size2));
  assert_int_equal(size, size2);
  assert_memory_equal(bytes, bytes2, size);
  rt_mem_free(bytes2);
  rt_vm_executable_deinitialize(&back);
  rt_mem_free(bytes);
  release_compiled(&c);
}

/* Serializes `exe` after `mutate` and expects DATA_LOSS containing needle. */
static void expect_rejected(const rt_vm_executable_t *exe, void (*mutate)(rt_vm_executable_t *),
                            const char *needle) {
  char *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_vm_executable_serialize(exe, &bytes, &size));
  rt_vm_executable_t copy;
  assert_ok(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size, "x", &copy));
  rt_mem_free(bytes);
  mutate(&copy);
  assert_ok(rt_vm_executable_serialize(&copy, &bytes, &size));
  rt_vm_executable_deinitialize(&copy);
  rt_vm_executable_t bad;
  assert_status(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size,
                                             "bad.vmx", &bad),
                DATA_LOSS, needle);
  rt_mem_free(bytes);
}

static void bad_opcode(rt_vm_executable_t *e) { e->functions[0].instrs[0].op = 99; }
static void bad_register(rt_vm_executable_t *e) {
  for (int32_t pc = 0; pc < e->functions[0].num_instrs; ++pc) {
    if (e->functions[0].instrs[pc].op == RT_VM_OP_RET) e->functions[0].instrs[pc].a = 1 << 20;
  }
}
static void bad_list(rt_vm_executable_t *e) {
  for (int32_t f = 0; f < e->num_functions; ++f) {
    if (e->functions[f].num_list > 0) e->functions[f].list[0] = -5;
  }
}
static void bad_jump(rt_vm_executable_t *e) {
  for (int32_t f = 0; f < e->num_functions; ++f) {
    for (int32_t pc = 0; pc < e->functions[f].num_instrs; ++pc) {
      if (e->functions[f].instrs[pc].op == RT_VM_OP_IF) e->functions[f].instrs[pc].d = 100000;
    }
  }
}
static void bad_slot(rt_vm_executable_t *e) {
  for (int32_t f = 0; f < e->num_functions; ++f) {
    if (e->functions[f].num_slots > 0) e->functions[f].slots[0].offset = 1 << 30;
  }
}
static void bad_end(rt_vm_executable_t *e) {
  e->functions[0].instrs[e->functions[0].num_instrs - 1].op = RT_VM_OP_KILL_REGISTER;
}
static void bad_kernel_arity(rt_vm_executable_t *e) {
  if (e->num_kernels > 0) e->kernels[0].num_inputs += 1;
}

static void test_vm_serialize_corrupt(void **state) {
  (void)state;
  compiled c;
  compile_program(&c);
  if (!c.ok) {
    release_compiled(&c);
    skip();
  }
  char *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_vm_executable_serialize(&c.b.exe, &bytes, &size));
  rt_vm_executable_t e;
  /* Every truncation. */
  for (size_t n = 0; n < size; ++n) {
    rt_status_t st = rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, n,
                                                  "cut.vmx", &e);
    assert_non_null(st);
    assert_int_equal(rt_status_code(st), RT_STATUS_DATA_LOSS);
    rt_status_free(st);
  }
  /* Trailing bytes. */
  char *longer = rt_mem_alloc(size + 3);
  memcpy(longer, bytes, size);
  memset(longer + size, 0, 3);
  assert_status(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)longer, size + 3,
                                             "long.vmx", &e), DATA_LOSS, "after the end");
  rt_mem_free(longer);
  /* Bad magic, version. */
  bytes[0] ^= 0x55;
  assert_status(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size,
                                             "magic.vmx", &e), DATA_LOSS, "bad magic");
  bytes[0] ^= 0x55;
  bytes[8] = 7;
  assert_status(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size,
                                             "version.vmx", &e), DATA_LOSS, "format version 7");
  bytes[8] = RT_VM_FORMAT_VERSION;
  rt_mem_free(bytes);
  expect_rejected(&c.b.exe, bad_opcode, "bad opcode 99");
  expect_rejected(&c.b.exe, bad_register, "out of range");
  expect_rejected(&c.b.exe, bad_list, "out of range");
  expect_rejected(&c.b.exe, bad_jump, "out of range");
  expect_rejected(&c.b.exe, bad_slot, "outside");
  expect_rejected(&c.b.exe, bad_end, "run off its end");
  expect_rejected(&c.b.exe, bad_kernel_arity, "takes");
  release_compiled(&c);
}

/* ---- the runtime alone ------------------------------------------------------------ */

/* out = a + b for float32 vectors of any (equal) length. */
static int32_t k_add(const rt_kernel_arg *args, int32_t nargs, const rt_kernel_ctx *ctx) {
  if (nargs != 3 || args[0].rank != 1 || args[1].rank != 1 || args[2].rank != 1 ||
      args[0].shape[0] != args[1].shape[0] || args[2].shape[0] != args[0].shape[0]) {
    ctx->set_error(ctx, "k_add: shapes do not match");
    return 1;
  }
  const float *a = args[0].data, *b = args[1].data;
  float *o = args[2].data;
  for (int64_t i = 0; i < args[0].shape[0]; ++i) o[i] = a[i] + b[i];
  return 0;
}

static rt_status_t same_shape(void *user, int32_t kernel, int32_t nin, const rt_kernel_arg *in,
                              int32_t nout, rt_vm_shape_t *out) {
  (void)user;
  (void)kernel;
  (void)nin;
  (void)nout;
  out[0].rank = in[0].rank;
  for (int32_t d = 0; d < in[0].rank; ++d) out[0].dims[d] = in[0].shape[d];
  return RT_OK;
}

/* @main(x: float32[?]) = if LoadConsti 1 == 1: reshape(x + x, shape_of(x))
 * (the If is always taken; the else arm returns x). */
static void build_handmade(rt_vm_executable_t *e) {
  memset(e, 0, sizeof *e);
  e->num_kernels = 1;
  e->kernels = rt_mem_calloc(1, sizeof *e->kernels);
  e->kernels[0] = (rt_vm_kernel_info_t){rt_mem_strdup("k_add"), 2, 1, true, 0, NULL};
  e->num_functions = 1;
  e->functions = rt_mem_calloc(1, sizeof *e->functions);
  rt_vm_function_t *f = &e->functions[0];
  f->name = rt_mem_strdup("main");
  f->num_params = 1;
  f->num_registers = 7;
  static const int32_t list[] = {0, 0, 1, 0, 0, 2};
  f->num_list = 6;
  f->list = rt_mem_alloc(sizeof list);
  memcpy(f->list, list, sizeof list);
  const rt_vm_instr_t code[] = {
      {RT_VM_OP_LOAD_CONSTI, 5, 1, 0, 0},
      {RT_VM_OP_IF, 5, 1, 1, 7},              /* -> pc 1 or pc 7 */
      {RT_VM_OP_SHAPE_FUNC, 1, 0, 0, 3},      /* r1 = shape */
      {RT_VM_OP_ALLOC_TENSOR_REG, 2, 1, 2 | (32 << 8) | (1 << 16), 0},
      {RT_VM_OP_INVOKE_KERNEL, 1, 0, 3, 3},   /* r2 = r0 + r0 */
      {RT_VM_OP_SHAPE_OF, 3, 0, 0, 0},
      {RT_VM_OP_RESHAPE_TENSOR, 4, 2, 3, 0},
      {RT_VM_OP_RET, 4, 0, 0, 0},
      {RT_VM_OP_RET, 0, 0, 0, 0},
  };
  f->num_instrs = (int32_t)(sizeof code / sizeof code[0]);
  f->instrs = rt_mem_alloc(sizeof code);
  memcpy(f->instrs, code, sizeof code);
  /* Fix the If: true -> pc 2, false -> pc 8. */
  f->instrs[1].c = 1;
  f->instrs[1].d = 7;
}

static void test_vm_runtime_only(void **state) {
  (void)state;
  rt_vm_executable_t e;
  build_handmade(&e);
  assert_ok(rt_vm_executable_validate(&e));
  char *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_vm_executable_serialize(&e, &bytes, &size));
  rt_vm_executable_deinitialize(&e);
  assert_ok(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size, "h", &e));
  rt_mem_free(bytes);
  rt_kernel_fn kernels[1] = {k_add};
  rt_vm_options_t opts = {0};
  opts.shape_fn = same_shape;
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), &e, kernels, NULL, &opts, &vm));
  for (int64_t n = 1; n <= 9; n += 4) {
    rt_tensor_t *x = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n, &x));
    for (int64_t i = 0; i < n; ++i) ((float *)rt_tensor_data(x))[i] = (float)i;
    rt_vm_value_t arg = rt_vm_value_of_tensor(x), out;
    assert_ok(rt_vm_invoke(vm, 0, 1, &arg, &out));
    assert_int_equal(out.kind, RT_VM_VALUE_TENSOR);
    assert_int_equal(rt_tensor_shape(out.tensor)[0], n);
    assert_true(((float *)rt_tensor_data(out.tensor))[n - 1] == 2.0f * (float)(n - 1));
    rt_vm_value_release(out);
    rt_tensor_release(x);
  }
  rt_vm_release(vm);
  /* Without a shape function the dynamic kernel is a clear error. */
  assert_ok(rt_vm_create(rt_allocator_system(), &e, kernels, NULL, NULL, &vm));
  int64_t n = 3;
  rt_tensor_t *x = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n, &x));
  rt_vm_value_t arg = rt_vm_value_of_tensor(x), out;
  assert_status(rt_vm_invoke(vm, 0, 1, &arg, &out), FAILED_PRECONDITION, "shape function");
  /* A wrong-kind argument is an error, not a crash. */
  rt_vm_release(vm);
  rt_tensor_release(x);
  rt_vm_executable_deinitialize(&e);
}

/* The hand-built executable with a shape recipe (out dim 0 = input 0's
 * dim 0) runs without any host shape function, across a serialize round
 * trip; a recipe naming an input the kernel lacks, or a register file past
 * the limit, is DATA_LOSS. */
static void test_vm_serialize_recipe_and_register_limit(void **state) {
  (void)state;
  rt_vm_executable_t e;
  build_handmade(&e);
  static const int64_t recipe[] = {1, 0, 0, 0, 1, 0, 1};
  e.kernels[0].recipe_len = (int32_t)RT_COUNTOF(recipe);
  e.kernels[0].recipe = rt_mem_alloc(sizeof recipe);
  memcpy(e.kernels[0].recipe, recipe, sizeof recipe);
  assert_ok(rt_vm_executable_validate(&e));
  char *bytes = NULL;
  size_t size = 0;
  assert_ok(rt_vm_executable_serialize(&e, &bytes, &size));
  rt_vm_executable_t back;
  assert_ok(rt_vm_executable_deserialize(rt_allocator_system(), (const uint8_t *)bytes, size, "r", &back));
  rt_mem_free(bytes);
  assert_int_equal(back.kernels[0].recipe_len, (int32_t)RT_COUNTOF(recipe));
  rt_kernel_fn kernels[1] = {k_add};
  rt_vm_t *vm = NULL;
  assert_ok(rt_vm_create(rt_allocator_system(), &back, kernels, NULL, NULL, &vm));
  int64_t n = 5;
  rt_tensor_t *x = NULL;
  assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 1, &n, &x));
  for (int64_t i = 0; i < n; ++i) ((float *)rt_tensor_data(x))[i] = (float)i;
  rt_vm_value_t arg = rt_vm_value_of_tensor(x), out;
  assert_ok(rt_vm_invoke(vm, 0, 1, &arg, &out));
  assert_int_equal(rt_tensor_shape(out.tensor)[0], 5);
  assert_true(((float *)rt_tensor_data(out.tensor))[4] == 8.0f);
  rt_vm_value_release(out);
  rt_tensor_release(x);
  rt_vm_release(vm);
  rt_vm_executable_deinitialize(&back);
  /* Bad recipes. */
  e.kernels[0].recipe[1] = 5; /* input 5 of a 2-input kernel */
  assert_status(rt_vm_executable_validate(&e), DATA_LOSS, "k_add has a bad shape recipe");
  e.kernels[0].recipe[1] = 0;
  e.kernels[0].recipe_len--; /* cut short */
  assert_status(rt_vm_executable_validate(&e), DATA_LOSS, "bad shape recipe");
  e.kernels[0].recipe_len++;
  assert_ok(rt_vm_executable_validate(&e));
  /* The register file limit. */
  e.functions[0].num_registers = RT_VM_MAX_REGISTERS + 1;
  assert_status(rt_vm_executable_validate(&e), DATA_LOSS, "the limit is");
  e.functions[0].num_registers = 7;
  rt_vm_executable_deinitialize(&e);
}

/* The register stack and call depth limits: deep recursion is a clear
 * RESOURCE_EXHAUSTED naming the limit, and the VM recovers. */
static void test_vm_serialize_stack_limits(void **state) {
  (void)state;
  compiled c;
  compile_program(&c);
  if (!c.ok) {
    release_compiled(&c);
    skip();
  }
  int32_t main_index = 0;
  assert_ok(rt_vm_executable_lookup(&c.b.exe, "main", &main_index));
  for (int limit = 0; limit < 2; ++limit) {
    rt_vm_options_t opts = {0};
    if (limit) {
      opts.max_call_depth = 20;
    } else {
      opts.max_stack_registers = 200;
    }
    rt_vm_t *vm = NULL;
    assert_ok(rt_vm_create(rt_allocator_system(), &c.b.exe, c.b.kernels, NULL, &opts, &vm));
    int64_t shape[2] = {2, 4};
    rt_tensor_t *x = NULL, *n = NULL;
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_FLOAT32, 2, shape, &x));
    assert_ok(rt_tensor_create(rt_allocator_system(), RT_DTYPE_INT32, 0, NULL, &n));
    memset(rt_tensor_data(x), 0, 8 * sizeof(float));
    *(int32_t *)rt_tensor_data(n) = 1000;
    rt_vm_value_t args[2] = {rt_vm_value_of_tensor(x), rt_vm_value_of_tensor(n)};
    rt_vm_value_t out;
    assert_status(rt_vm_invoke(vm, main_index, 2, args, &out), RESOURCE_EXHAUSTED,
                  limit ? "call depth limit" : "register stack limit 200");
    *(int32_t *)rt_tensor_data(n) = 3;
    assert_ok(rt_vm_invoke(vm, main_index, 2, args, &out));
    assert_int_equal(*(int32_t *)rt_tensor_data(out.object->fields[1].tensor), 6);
    rt_vm_value_release(out);
    rt_tensor_release(x);
    rt_tensor_release(n);
    rt_vm_release(vm);
  }
  release_compiled(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_vm_serialize_round_trip),
      cmocka_unit_test(test_vm_serialize_corrupt),
      cmocka_unit_test(test_vm_runtime_only),
      cmocka_unit_test(test_vm_serialize_recipe_and_register_limit),
      cmocka_unit_test(test_vm_serialize_stack_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
