/* The VM executable as data: validation, disassembly and the file format
 * (runtime/vm.h documents the layout).
 *
 * Validation walks every instruction once and checks each operand by the
 * kind its opcode's format (runtime/vm_ops.def) gives it, so the one table
 * drives the interpreter's asserts, this checker and the disassembler.
 * Besides ranges it checks what the interpreter relies on: kernel and
 * callee arities match the instruction, every slot fits its frame and is
 * 64-byte aligned, and each function ends in Ret or Goto (control never
 * falls off the end: every other instruction continues at pc + 1, and
 * jumps stay inside).
 *
 * Reading is a cursor over the bytes that fails with DATA_LOSS, naming the
 * file and the offset, on any truncation; counts are checked against the
 * bytes left before anything is allocated, so a lying count cannot make
 * the reader allocate much. */
#include <stdlib.h>
#include <string.h>

#include "runtime/bytes.h"
#include "runtime/ndarray_blob.h"
#include "runtime/size.h"
#include "runtime/vm.h"
#include "runtime/mem.h"

/* ---- lifetime and lookup ----------------------------------------------------- */

void rt_vm_executable_deinitialize(rt_vm_executable_t *exe) {
  for (int32_t f = 0; exe->functions && f < exe->num_functions; ++f) {
    rt_vm_function_t *fn = &exe->functions[f];
    rt_mem_free(fn->name);
    rt_mem_free(fn->instrs);
    rt_mem_free(fn->list);
    rt_mem_free(fn->slots);
  }
  for (int32_t k = 0; exe->kernels && k < exe->num_kernels; ++k) {
    rt_mem_free(exe->kernels[k].name);
    rt_mem_free(exe->kernels[k].recipe);
  }
  for (int32_t h = 0; exe->host_ops && h < exe->num_host_ops; ++h) rt_mem_free(exe->host_ops[h]);
  rt_mem_free(exe->host_ops);
  for (int32_t c = 0; exe->consts && c < exe->num_consts; ++c) rt_tensor_release(exe->consts[c]);
  rt_mem_free(exe->functions);
  rt_mem_free(exe->kernels);
  rt_mem_free(exe->consts);
  memset(exe, 0, sizeof *exe);
}

rt_status_t rt_vm_executable_lookup(const rt_vm_executable_t *exe, const char *name,
                                    int32_t *out_index) {
  if (name && name[0] == '@') name++;
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    if (strcmp(exe->functions[f].name, name) == 0) {
      *out_index = f;
      return RT_OK;
    }
  }
  return RT_STATUS(NOT_FOUND, "the executable has no function @%s", name ? name : "(null)");
}

/* ---- shape recipes ------------------------------------------------------------ */

rt_status_t rt_vm_shape_recipe_check(const rt_vm_kernel_info_t *ki) {
  if (ki->recipe_len == 0) return ki->recipe ? RT_STATUS(INTERNAL, "empty recipe array") : RT_OK;
  const int64_t *w = ki->recipe;
  int64_t n = ki->recipe_len, at = 0;
  const char *why = NULL;
  int64_t nv = n > 0 && w ? w[at++] : -1;
  if (nv < 0 || nv > RT_VM_MAX_RECIPE_VARS || n < 2 + 2 * nv) why = "its variable count";
  for (int64_t v = 0; !why && v < nv; ++v, at += 2) {
    if (w[at] < 0 || w[at] >= ki->num_inputs || w[at + 1] < 0 || w[at + 1] >= RT_TENSOR_MAX_RANK) {
      why = "a variable names no input dim";
    }
  }
  if (!why && w[at] != 0 && w[at] != 1) why = "its tie flag";
  at++;
  for (int32_t o = 0; !why && o < ki->num_outputs; ++o) {
    if (at >= n || w[at] < 0 || w[at] > RT_TENSOR_MAX_RANK) {
      why = "an output rank";
      break;
    }
    int64_t rank = w[at++];
    if ((n - at) / (1 + nv) < rank) why = "an output's dims (past the end)";
    at += rank * (1 + nv);
  }
  if (!why && at != n) why = "its length";
  if (why) {
    return RT_STATUS(DATA_LOSS, "kernel %s has a bad shape recipe (%s)", ki->name ? ki->name : "?",
                     why);
  }
  return RT_OK;
}

/* ---- validation ------------------------------------------------------------- */

static bool dtype_ok(rt_dtype_t dt) { return rt_dtype_is_valid(dt) && dt.lanes == 1; }

static rt_status_t check_slot(const rt_vm_function_t *fn, int32_t i) {
  const rt_vm_slot_t *s = &fn->slots[i];
  if (!dtype_ok(s->dtype)) return RT_STATUS(DATA_LOSS, "@%s: slot %d has an invalid dtype", fn->name, (int)i);
  if (s->rank < 0 || s->rank > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(DATA_LOSS, "@%s: slot %d has rank %d", fn->name, (int)i, (int)s->rank);
  }
  size_t bytes = 0;
  for (int32_t d = 0; d < s->rank; ++d) {
    if (s->shape[d] < 0) return RT_STATUS(DATA_LOSS, "@%s: slot %d has a negative dim", fn->name, (int)i);
  }
  rt_status_t big = rt_size_of_shape(s->rank, s->shape, rt_dtype_size(s->dtype), &bytes);
  if (big) {
    rt_status_free(big);
    return RT_STATUS(DATA_LOSS, "@%s: slot %d is too large", fn->name, (int)i);
  }
  if (s->offset == RT_VM_SLOT_POOLED) return RT_OK;
  if (s->offset < 0 || s->offset % 64 != 0 || (uint64_t)s->offset > fn->frame_bytes ||
      bytes > fn->frame_bytes - (uint64_t)s->offset) {
    return RT_STATUS(DATA_LOSS, "@%s: slot %d (offset %lld, %zu bytes) is outside the %llu-byte "
                     "frame or not 64-byte aligned", fn->name, (int)i, (long long)s->offset, bytes,
                     (unsigned long long)fn->frame_bytes);
  }
  return RT_OK;
}

static rt_status_t check_instr(const rt_vm_executable_t *exe, const rt_vm_function_t *fn,
                               int32_t pc) {
  const rt_vm_instr_t *in = &fn->instrs[pc];
  if (in->op < 0 || in->op >= RT_VM_OP_COUNT) {
    return RT_STATUS(DATA_LOSS, "@%s pc %d: bad opcode %d", fn->name, (int)pc, (int)in->op);
  }
  const rt_vm_op_info_t *info = rt_vm_op_info((rt_vm_opcode_t)in->op);
  const int32_t ops[4] = {in->a, in->b, in->c, in->d};
  for (int32_t k = 0; k < 4; ++k) {
    int32_t v = ops[k];
    char kind = info->format[k];
    const char letter = (char)('A' + k);
    bool ok = true;
    switch (kind) {
      case 'r': ok = v >= 0 && v < fn->num_registers; break;
      case 'f': ok = v >= 0 && v < exe->num_functions; break;
      case 'k': ok = v >= 0 && v < exe->num_kernels; break;
      case 'h': ok = v >= 0 && v < exe->num_host_ops; break;
      case 'c': ok = v >= 0 && v < exe->num_consts; break;
      case 't': ok = v >= 0 && v < fn->num_slots; break;
      case 'n': ok = v >= 0; break;
      case 'i': break;
      case 'j': ok = (int64_t)pc + v >= 0 && (int64_t)pc + v < fn->num_instrs; break;
      case 'd': {
        rt_dtype_t dt = {(uint8_t)(v & 0xff), (uint8_t)((v >> 8) & 0xff), (uint16_t)((uint32_t)v >> 16)};
        ok = dtype_ok(dt);
        break;
      }
      case 'l': {
        int32_t n = k + 1 < 4 ? ops[k + 1] : -1;
        ok = v >= 0 && n >= 0 && (int64_t)v + n <= fn->num_list;
        for (int32_t i = 0; ok && i < n; ++i) {
          ok = fn->list[v + i] >= 0 && fn->list[v + i] < fn->num_registers;
        }
        break;
      }
      case '-': ok = v == 0; break;
      default: ok = false; break;
    }
    if (!ok) {
      return RT_STATUS(DATA_LOSS, "@%s pc %d: %s operand %c = %d is out of range (kind '%c'; "
                       "%d registers, %d list entries)", fn->name, (int)pc, info->name, letter,
                       (int)v, kind, (int)fn->num_registers, (int)fn->num_list);
    }
  }
  switch ((rt_vm_opcode_t)in->op) {
    case RT_VM_OP_INVOKE_KERNEL:
    case RT_VM_OP_SHAPE_FUNC: {
      const rt_vm_kernel_info_t *ki = &exe->kernels[in->b];
      if (in->a != ki->num_outputs || in->d != ki->num_inputs + ki->num_outputs) {
        return RT_STATUS(DATA_LOSS, "@%s pc %d: %s of kernel %s with %d arguments (%d outputs); "
                         "it takes %d inputs and %d outputs", fn->name, (int)pc, info->name,
                         ki->name, (int)in->d, (int)in->a, (int)ki->num_inputs,
                         (int)ki->num_outputs);
      }
      break;
    }
    case RT_VM_OP_INVOKE:
      if (exe->functions[in->b].num_params != in->d) {
        return RT_STATUS(DATA_LOSS, "@%s pc %d: Invoke of @%s with %d arguments; it takes %d",
                         fn->name, (int)pc, exe->functions[in->b].name, (int)in->d,
                         (int)exe->functions[in->b].num_params);
      }
      break;
    case RT_VM_OP_ALLOC_CLOSURE:
      if (in->d > exe->functions[in->b].num_params) {
        return RT_STATUS(DATA_LOSS, "@%s pc %d: a closure of @%s capturing %d values; it takes %d",
                         fn->name, (int)pc, exe->functions[in->b].name, (int)in->d,
                         (int)exe->functions[in->b].num_params);
      }
      break;
    default:
      break;
  }
  return RT_OK;
}

rt_status_t rt_vm_executable_validate(const rt_vm_executable_t *exe) {
  if (exe->num_functions < 0 || exe->num_kernels < 0 || exe->num_consts < 0 ||
      exe->num_host_ops < 0) {
    return RT_STATUS(DATA_LOSS, "negative table size in the executable");
  }
  for (int32_t h = 0; h < exe->num_host_ops; ++h) {
    if (!exe->host_ops[h]) return RT_STATUS(DATA_LOSS, "host op %d has no name", (int)h);
  }
  for (int32_t c = 0; c < exe->num_consts; ++c) {
    if (!exe->consts[c]) return RT_STATUS(DATA_LOSS, "constant %d is missing", (int)c);
  }
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    const rt_vm_kernel_info_t *ki = &exe->kernels[k];
    if (!ki->name || ki->num_inputs < 0 || ki->num_outputs < 1 ||
        ki->num_inputs > RT_VM_MAX_REGISTERS || ki->num_outputs > RT_VM_MAX_REGISTERS) {
      return RT_STATUS(DATA_LOSS, "kernel %d has bad arities", (int)k);
    }
    RT_RETURN_IF_ERROR(rt_vm_shape_recipe_check(ki));
  }
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    const rt_vm_function_t *fn = &exe->functions[f];
    if (!fn->name) return RT_STATUS(DATA_LOSS, "function %d has no name", (int)f);
    if (fn->num_registers < 0 || fn->num_registers > RT_VM_MAX_REGISTERS) {
      return RT_STATUS(DATA_LOSS, "@%s has %d registers (the limit is %d)", fn->name,
                       (int)fn->num_registers, RT_VM_MAX_REGISTERS);
    }
    if (fn->num_params < 0 || fn->num_params > fn->num_registers) {
      return RT_STATUS(DATA_LOSS, "@%s has %d parameters and %d registers", fn->name,
                       (int)fn->num_params, (int)fn->num_registers);
    }
    if (fn->num_instrs < 1 || fn->num_instrs > RT_VM_MAX_INSTRS || fn->num_list < 0 ||
        fn->num_slots < 0) {
      return RT_STATUS(DATA_LOSS, "@%s has %d instructions", fn->name, (int)fn->num_instrs);
    }
    for (int32_t i = 0; i < fn->num_slots; ++i) RT_RETURN_IF_ERROR(check_slot(fn, i));
    for (int32_t pc = 0; pc < fn->num_instrs; ++pc) RT_RETURN_IF_ERROR(check_instr(exe, fn, pc));
    int32_t last = fn->instrs[fn->num_instrs - 1].op;
    if (last != RT_VM_OP_RET && last != RT_VM_OP_GOTO) {
      return RT_STATUS(DATA_LOSS, "@%s does not end in Ret or Goto (control would run off its "
                       "end)", fn->name);
    }
  }
  return RT_OK;
}

/* ---- disassembly ------------------------------------------------------------- */

static void print_list(const rt_vm_function_t *fn, int32_t start, int32_t count, rt_strbuf_t *out) {
  for (int32_t i = 0; i < count; ++i) {
    rt_strbuf_printf(out, "%sr%d", i ? ", " : "", (int)fn->list[start + i]);
  }
}

static unsigned long long magnitude(int64_t v) {
  return v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
}

/* A (checked) recipe as "(in0[0], 16)", per output; "tied" when its
 * variables must agree. */
static void print_recipe(const rt_vm_kernel_info_t *ki, rt_strbuf_t *out) {
  const int64_t *w = ki->recipe;
  int64_t nv = w[0], at = 1 + 2 * nv;
  bool tied = w[at++] != 0;
  for (int32_t o = 0; o < ki->num_outputs; ++o) {
    int64_t rank = w[at++];
    rt_strbuf_puts(out, o ? ", (" : " (");
    for (int64_t d = 0; d < rank; ++d) {
      int64_t c0 = w[at++];
      bool any = false;
      if (d) rt_strbuf_puts(out, ", ");
      for (int64_t v = 0; v < nv; ++v, ++at) {
        int64_t k = w[at];
        if (k == 0) continue;
        if (any) rt_strbuf_puts(out, k < 0 ? " - " : " + ");
        if (!any && k < 0) rt_strbuf_putc(out, '-');
        if (k != 1 && k != -1) rt_strbuf_printf(out, "%llu*", magnitude(k));
        rt_strbuf_printf(out, "in%lld[%lld]", (long long)w[1 + 2 * v], (long long)w[2 + 2 * v]);
        any = true;
      }
      if (!any) {
        rt_strbuf_printf(out, "%lld", (long long)c0);
      } else if (c0) {
        rt_strbuf_printf(out, " %c %llu", c0 < 0 ? '-' : '+', magnitude(c0));
      }
    }
    rt_strbuf_putc(out, ')');
  }
  if (tied && nv > 1) rt_strbuf_puts(out, " with every `?` input dim equal");
}

void rt_vm_executable_disassemble(const rt_vm_executable_t *exe, rt_strbuf_t *out) {
  rt_strbuf_printf(out, "; vm executable: %d functions, %d kernels, %d host ops, %d constants\n",
                   (int)exe->num_functions, (int)exe->num_kernels, (int)exe->num_host_ops,
                   (int)exe->num_consts);
  for (int32_t h = 0; h < exe->num_host_ops; ++h) {
    rt_strbuf_printf(out, "; H%d = %s (host: its reference kernel)\n", (int)h, exe->host_ops[h]);
  }
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    const rt_vm_kernel_info_t *ki = &exe->kernels[k];
    rt_strbuf_printf(out, "; K%d = %s (%d inputs, %d outputs%s", (int)k, ki->name,
                     (int)ki->num_inputs, (int)ki->num_outputs,
                     !ki->dynamic ? ""
                     : ki->recipe_len ? ", dynamic: shape recipe"
                                      : ", dynamic: host shape function");
    if (ki->dynamic && ki->recipe_len) print_recipe(ki, out);
    rt_strbuf_puts(out, ")\n");
  }
  for (int32_t c = 0; c < exe->num_consts; ++c) {
    const rt_tensor_t *t = exe->consts[c];
    char dn[RT_DTYPE_NAME_MAX];
    rt_strbuf_printf(out, "; C%d = %s[", (int)c, rt_dtype_name(rt_tensor_dtype(t), dn));
    for (int32_t d = 0; d < rt_tensor_rank(t); ++d) {
      rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)rt_tensor_shape(t)[d]);
    }
    rt_strbuf_puts(out, "]\n");
  }
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    const rt_vm_function_t *fn = &exe->functions[f];
    int32_t planned = 0;
    for (int32_t i = 0; i < fn->num_slots; ++i) planned += fn->slots[i].offset >= 0;
    rt_strbuf_printf(out, "\nF%d @%s: params r0..r%d, %d registers, %d instructions, frame %llu "
                     "bytes (%d of %d tensor slots planned)\n", (int)f, fn->name,
                     (int)fn->num_params - 1, (int)fn->num_registers, (int)fn->num_instrs,
                     (unsigned long long)fn->frame_bytes, (int)planned, (int)fn->num_slots);
    for (int32_t i = 0; i < fn->num_slots; ++i) {
      const rt_vm_slot_t *s = &fn->slots[i];
      char dn[RT_DTYPE_NAME_MAX];
      rt_strbuf_printf(out, "  T%d = %s[", (int)i, rt_dtype_name(s->dtype, dn));
      for (int32_t d = 0; d < s->rank; ++d) rt_strbuf_printf(out, "%s%lld", d ? ", " : "", (long long)s->shape[d]);
      if (s->offset >= 0) {
        rt_strbuf_printf(out, "] at frame +%lld\n", (long long)s->offset);
      } else {
        rt_strbuf_puts(out, "] pooled\n");
      }
    }
    for (int32_t pc = 0; pc < fn->num_instrs; ++pc) {
      const rt_vm_instr_t *in = &fn->instrs[pc];
      const rt_vm_op_info_t *info = rt_vm_op_info((rt_vm_opcode_t)in->op);
      const int32_t ops[4] = {in->a, in->b, in->c, in->d};
      size_t start = out->len;
      rt_strbuf_printf(out, "  %4d  %-14s", (int)pc, info->name);
      for (int32_t k = 0; k < 4; ++k) {
        if (info->format[k] != '-') rt_strbuf_printf(out, " %c=%d", 'A' + k, (int)ops[k]);
      }
      /* Pad to a column, then the synopsis with the operands put in. */
      while (out->len - start < 46 && !out->failed) rt_strbuf_putc(out, ' ');
      rt_strbuf_puts(out, " ; ");
      for (const char *s = info->synopsis; *s; ++s) {
        bool letter = *s >= 'A' && *s <= 'D' && !(s > info->synopsis && ((s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z'))) &&
                      !((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z'));
        if (letter) {
          rt_strbuf_printf(out, "%d", (int)ops[*s - 'A']);
        } else {
          rt_strbuf_putc(out, *s);
        }
      }
      /* Operand lists and names, spelled out. */
      for (int32_t k = 0; k < 4; ++k) {
        if (info->format[k] == 'l') {
          rt_strbuf_puts(out, "  [");
          print_list(fn, ops[k], ops[k + 1], out);
          rt_strbuf_puts(out, "]");
        } else if (info->format[k] == 'k') {
          rt_strbuf_printf(out, "  %s", exe->kernels[ops[k]].name);
        } else if (info->format[k] == 'h') {
          rt_strbuf_printf(out, "  %s (host)", exe->host_ops[ops[k]]);
        } else if (info->format[k] == 'f') {
          rt_strbuf_printf(out, "  @%s", exe->functions[ops[k]].name);
        } else if (info->format[k] == 'j') {
          rt_strbuf_printf(out, "  (->%d)", (int)(pc + ops[k]));
        } else if (info->format[k] == 'd') {
          char dn[RT_DTYPE_NAME_MAX];
          rt_dtype_t dt = {(uint8_t)(ops[k] & 0xff), (uint8_t)((ops[k] >> 8) & 0xff),
                           (uint16_t)((uint32_t)ops[k] >> 16)};
          rt_strbuf_printf(out, "  %s", rt_dtype_name(dt, dn));
        }
      }
      rt_strbuf_putc(out, '\n');
    }
  }
}

/* ---- writing ------------------------------------------------------------------ */

static void put_str(rt_strbuf_t *out, const char *s) {
  size_t n = strlen(s);
  rt_put_le_u32(out, (uint32_t)n);
  rt_strbuf_append(out, s, n);
}

rt_status_t rt_vm_executable_serialize(const rt_vm_executable_t *exe, char **out_bytes,
                                       size_t *out_size) {
  if (exe->num_host_ops > 0) {
    return RT_STATUS(UNIMPLEMENTED, "the executable calls %d host op%s (%s%s), which run the "
                     "compiler's reference kernels: the file format cannot carry them yet",
                     (int)exe->num_host_ops, exe->num_host_ops == 1 ? "" : "s", exe->host_ops[0],
                     exe->num_host_ops > 1 ? ", ..." : "");
  }
  rt_strbuf_t b;
  rt_strbuf_initialize(&b);
  rt_put_le_u64(&b, RT_VM_MAGIC);
  rt_put_le_u32(&b, RT_VM_FORMAT_VERSION);
  rt_put_le_u32(&b, RT_KERNEL_ABI_VERSION);
  rt_put_le_u32(&b, (uint32_t)exe->num_consts);
  for (int32_t c = 0; c < exe->num_consts; ++c) rt_ndarray_blob_write(exe->consts[c], &b);
  rt_put_le_u32(&b, (uint32_t)exe->num_kernels);
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    put_str(&b, exe->kernels[k].name);
    rt_put_le_u32(&b, (uint32_t)exe->kernels[k].num_inputs);
    rt_put_le_u32(&b, (uint32_t)exe->kernels[k].num_outputs);
    rt_put_le_u32(&b, exe->kernels[k].dynamic ? 1u : 0u);
    rt_put_le_u32(&b, (uint32_t)exe->kernels[k].recipe_len);
    for (int32_t i = 0; i < exe->kernels[k].recipe_len; ++i) {
      rt_put_le_u64(&b, (uint64_t)exe->kernels[k].recipe[i]);
    }
  }
  rt_put_le_u32(&b, (uint32_t)exe->num_functions);
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    const rt_vm_function_t *fn = &exe->functions[f];
    put_str(&b, fn->name);
    rt_put_le_u32(&b, (uint32_t)fn->num_params);
    rt_put_le_u32(&b, (uint32_t)fn->num_registers);
    rt_put_le_u64(&b, fn->frame_bytes);
    rt_put_le_u32(&b, (uint32_t)fn->num_slots);
    for (int32_t i = 0; i < fn->num_slots; ++i) {
      const rt_vm_slot_t *s = &fn->slots[i];
      rt_strbuf_putc(&b, (char)s->dtype.code);
      rt_strbuf_putc(&b, (char)s->dtype.bits);
      rt_put_le_u16(&b, s->dtype.lanes);
      rt_put_le_u32(&b, (uint32_t)s->rank);
      rt_put_le_u64(&b, (uint64_t)s->offset);
      for (int32_t d = 0; d < s->rank; ++d) rt_put_le_u64(&b, (uint64_t)s->shape[d]);
    }
    rt_put_le_u32(&b, (uint32_t)fn->num_list);
    for (int32_t i = 0; i < fn->num_list; ++i) rt_put_le_u32(&b, (uint32_t)fn->list[i]);
    rt_put_le_u32(&b, (uint32_t)fn->num_instrs);
    for (int32_t pc = 0; pc < fn->num_instrs; ++pc) {
      const rt_vm_instr_t *in = &fn->instrs[pc];
      rt_put_le_u32(&b, (uint32_t)in->op);
      rt_put_le_u32(&b, (uint32_t)in->a);
      rt_put_le_u32(&b, (uint32_t)in->b);
      rt_put_le_u32(&b, (uint32_t)in->c);
      rt_put_le_u32(&b, (uint32_t)in->d);
    }
  }
  rt_put_le_u64(&b, RT_VM_END_MAGIC);
  return rt_strbuf_finish(&b, out_bytes, out_size);
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct {
  const uint8_t *p;
  size_t size, off;
  const char *name;
} cursor;

static rt_status_t truncated(const cursor *c, const char *what) {
  return RT_STATUS(DATA_LOSS, "%s: truncated VM executable (reading %s at byte %zu of %zu)",
                   c->name, what, c->off, c->size);
}

static rt_status_t get_u32(cursor *c, const char *what, uint32_t *out) {
  if (c->size - c->off < 4) return truncated(c, what);
  *out = rt_le_u32(c->p + c->off);
  c->off += 4;
  return RT_OK;
}

static rt_status_t get_u64(cursor *c, const char *what, uint64_t *out) {
  if (c->size - c->off < 8) return truncated(c, what);
  *out = rt_le_u64(c->p + c->off);
  c->off += 8;
  return RT_OK;
}

/* A count of items at least `min_bytes` each: no more than the bytes left. */
static rt_status_t get_count(cursor *c, const char *what, size_t min_bytes, int32_t limit,
                             int32_t *out) {
  uint32_t n = 0;
  RT_RETURN_IF_ERROR(get_u32(c, what, &n));
  if (n > (uint32_t)limit || (min_bytes && (uint64_t)n * min_bytes > c->size - c->off)) {
    return RT_STATUS(DATA_LOSS, "%s: %s count %u at byte %zu is past the file's end or the "
                     "limit %d", c->name, what, n, c->off - 4, (int)limit);
  }
  *out = (int32_t)n;
  return RT_OK;
}

static rt_status_t get_str(cursor *c, const char *what, char **out) {
  int32_t n = 0;
  RT_RETURN_IF_ERROR(get_count(c, what, 1, 1 << 16, &n));
  char *s = rt_mem_alloc((size_t)n + 1);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  memcpy(s, c->p + c->off, (size_t)n);
  s[n] = '\0';
  c->off += (size_t)n;
  if (memchr(s, '\0', (size_t)n)) {
    rt_mem_free(s);
    return RT_STATUS(DATA_LOSS, "%s: %s holds a NUL byte", c->name, what);
  }
  *out = s;
  return RT_OK;
}

static rt_status_t read_function(cursor *c, rt_vm_function_t *fn) {
  uint32_t u = 0;
  RT_RETURN_IF_ERROR(get_str(c, "a function name", &fn->name));
  RT_RETURN_IF_ERROR(get_u32(c, "the parameter count", &u));
  fn->num_params = (int32_t)(u > INT32_MAX ? -1 : (int64_t)u);
  RT_RETURN_IF_ERROR(get_u32(c, "the register count", &u));
  fn->num_registers = (int32_t)(u > INT32_MAX ? -1 : (int64_t)u);
  RT_RETURN_IF_ERROR(get_u64(c, "the frame size", &fn->frame_bytes));
  RT_RETURN_IF_ERROR(get_count(c, "slots", 16, RT_VM_MAX_INSTRS, &fn->num_slots));
  fn->slots = rt_mem_calloc((size_t)(fn->num_slots ? fn->num_slots : 1), sizeof(rt_vm_slot_t));
  if (!fn->slots) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t i = 0; i < fn->num_slots; ++i) {
    rt_vm_slot_t *s = &fn->slots[i];
    uint64_t off = 0;
    RT_RETURN_IF_ERROR(get_u32(c, "a slot dtype", &u));
    s->dtype.code = (uint8_t)(u & 0xff);
    s->dtype.bits = (uint8_t)((u >> 8) & 0xff);
    s->dtype.lanes = (uint16_t)(u >> 16);
    RT_RETURN_IF_ERROR(get_u32(c, "a slot rank", &u));
    if (u > RT_TENSOR_MAX_RANK) {
      return RT_STATUS(DATA_LOSS, "%s: @%s slot %d has rank %u", c->name, fn->name, (int)i, u);
    }
    s->rank = (int32_t)u;
    RT_RETURN_IF_ERROR(get_u64(c, "a slot offset", &off));
    s->offset = (int64_t)off;
    for (int32_t d = 0; d < s->rank; ++d) {
      uint64_t dim = 0;
      RT_RETURN_IF_ERROR(get_u64(c, "a slot dim", &dim));
      s->shape[d] = (int64_t)dim;
    }
  }
  RT_RETURN_IF_ERROR(get_count(c, "operand list", 4, RT_VM_MAX_INSTRS, &fn->num_list));
  fn->list = rt_mem_calloc((size_t)(fn->num_list ? fn->num_list : 1), sizeof(int32_t));
  if (!fn->list) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t i = 0; i < fn->num_list; ++i) {
    RT_RETURN_IF_ERROR(get_u32(c, "an operand list entry", &u));
    fn->list[i] = (int32_t)u;
  }
  RT_RETURN_IF_ERROR(get_count(c, "instructions", 20, RT_VM_MAX_INSTRS, &fn->num_instrs));
  fn->instrs = rt_mem_calloc((size_t)(fn->num_instrs ? fn->num_instrs : 1), sizeof(rt_vm_instr_t));
  if (!fn->instrs) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t pc = 0; pc < fn->num_instrs; ++pc) {
    uint32_t w[5];
    for (int k = 0; k < 5; ++k) RT_RETURN_IF_ERROR(get_u32(c, "an instruction", &w[k]));
    fn->instrs[pc] = (rt_vm_instr_t){(int32_t)w[0], (int32_t)w[1], (int32_t)w[2], (int32_t)w[3],
                                     (int32_t)w[4]};
  }
  return RT_OK;
}

static rt_status_t read_all(rt_allocator_t allocator, cursor *c, rt_vm_executable_t *exe) {
  uint64_t magic = 0;
  uint32_t version = 0, abi = 0;
  if (c->size < 8) return RT_STATUS(DATA_LOSS, "%s: too short for a VM executable (%zu bytes)", c->name, c->size);
  RT_RETURN_IF_ERROR(get_u64(c, "the magic", &magic));
  if (magic != RT_VM_MAGIC) {
    return RT_STATUS(DATA_LOSS, "%s: not a relayrt VM executable (bad magic 0x%016llx)", c->name,
                     (unsigned long long)magic);
  }
  RT_RETURN_IF_ERROR(get_u32(c, "the version", &version));
  if (version != RT_VM_FORMAT_VERSION) {
    return RT_STATUS(DATA_LOSS, "%s: VM executable format version %u; this runtime reads "
                     "version %d", c->name, version, RT_VM_FORMAT_VERSION);
  }
  RT_RETURN_IF_ERROR(get_u32(c, "the kernel ABI version", &abi));
  if (abi != RT_KERNEL_ABI_VERSION) {
    return RT_STATUS(DATA_LOSS, "%s: built for kernel ABI version %u; this runtime has %d",
                     c->name, abi, RT_KERNEL_ABI_VERSION);
  }
  RT_RETURN_IF_ERROR(get_count(c, "constants", 8, INT32_MAX, &exe->num_consts));
  exe->consts = rt_mem_calloc((size_t)(exe->num_consts ? exe->num_consts : 1), sizeof(rt_tensor_t *));
  if (!exe->consts) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t i = 0; i < exe->num_consts; ++i) {
    rt_status_t st = rt_ndarray_blob_read(allocator, c->p, c->size, &c->off, c->name, &exe->consts[i]);
    if (st) {
      exe->num_consts = i;
      return rt_status_annotate(st, "constant %d of the VM executable", (int)i);
    }
  }
  RT_RETURN_IF_ERROR(get_count(c, "kernels", 20, INT32_MAX, &exe->num_kernels));
  exe->kernels = rt_mem_calloc((size_t)(exe->num_kernels ? exe->num_kernels : 1), sizeof(rt_vm_kernel_info_t));
  if (!exe->kernels) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t k = 0; k < exe->num_kernels; ++k) {
    uint32_t nin = 0, nout = 0, dyn = 0;
    RT_RETURN_IF_ERROR(get_str(c, "a kernel name", &exe->kernels[k].name));
    RT_RETURN_IF_ERROR(get_u32(c, "a kernel's inputs", &nin));
    RT_RETURN_IF_ERROR(get_u32(c, "a kernel's outputs", &nout));
    RT_RETURN_IF_ERROR(get_u32(c, "a kernel's flags", &dyn));
    if (nin > RT_VM_MAX_REGISTERS || nout > RT_VM_MAX_REGISTERS || dyn > 1) {
      return RT_STATUS(DATA_LOSS, "%s: kernel %d has bad arities or flags", c->name, (int)k);
    }
    exe->kernels[k].num_inputs = (int32_t)nin;
    exe->kernels[k].num_outputs = (int32_t)nout;
    exe->kernels[k].dynamic = dyn != 0;
    int32_t nr = 0;
    RT_RETURN_IF_ERROR(get_count(c, "shape recipe words", 8, 1 << 16, &nr));
    if (nr > 0) {
      exe->kernels[k].recipe = rt_mem_alloc((size_t)nr * sizeof(int64_t));
      if (!exe->kernels[k].recipe) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
      exe->kernels[k].recipe_len = nr;
      for (int32_t i = 0; i < nr; ++i) {
        uint64_t w = 0;
        RT_RETURN_IF_ERROR(get_u64(c, "a shape recipe word", &w));
        exe->kernels[k].recipe[i] = (int64_t)w;
      }
    }
  }
  RT_RETURN_IF_ERROR(get_count(c, "functions", 40, INT32_MAX, &exe->num_functions));
  exe->functions = rt_mem_calloc((size_t)(exe->num_functions ? exe->num_functions : 1), sizeof(rt_vm_function_t));
  if (!exe->functions) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory reading %s", c->name);
  for (int32_t f = 0; f < exe->num_functions; ++f) {
    RT_RETURN_IF_ERROR_ANNOTATE(read_function(c, &exe->functions[f]), "function %d", (int)f);
  }
  uint64_t end = 0;
  RT_RETURN_IF_ERROR(get_u64(c, "the end marker", &end));
  if (end != RT_VM_END_MAGIC) return RT_STATUS(DATA_LOSS, "%s: bad end marker", c->name);
  if (c->off != c->size) {
    return RT_STATUS(DATA_LOSS, "%s: %zu bytes after the end of the VM executable", c->name,
                     c->size - c->off);
  }
  return RT_OK;
}

rt_status_t rt_vm_executable_deserialize(rt_allocator_t allocator, const uint8_t *bytes,
                                         size_t size, const char *source_name,
                                         rt_vm_executable_t *out_exe) {
  memset(out_exe, 0, sizeof *out_exe);
  if (!bytes && size) return RT_STATUS(INVALID_ARGUMENT, "bytes is NULL");
  cursor c = {bytes, size, 0, source_name ? source_name : "(memory)"};
  rt_vm_executable_t exe;
  memset(&exe, 0, sizeof exe);
  rt_status_t st = read_all(allocator, &c, &exe);
  if (!st) {
    st = rt_vm_executable_validate(&exe);
    if (st) st = rt_status_annotate(st, "%s: invalid VM executable", c.name);
  }
  if (st) {
    rt_vm_executable_deinitialize(&exe);
    return st;
  }
  *out_exe = exe;
  return RT_OK;
}
