/* dtypes (include/rt/tensor.h): DLPack's {code, bits, lanes} triples, their
 * Relay names and the parser for them.
 *
 * The names are those Relay prints: "bool", "int8".."int64",
 * "uint8".."uint64", "float16", "bfloat16", "float32", "float64", with an
 * "x<lanes>" suffix for vectors ("float16x4"). Bool is {kDLBool, 8, 1};
 * since TVM's own bool is "uint1", the parser maps that name to bool too.
 * "string" is relayrt's string dtype (RT_DTYPE_STRING), without lanes.
 * Names of triples outside these types still print (for error
 * messages) but never parse. */
#include <stdio.h>
#include <string.h>

#include "rt/tensor.h"

bool rt_dtype_equal(rt_dtype_t a, rt_dtype_t b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

size_t rt_dtype_size(rt_dtype_t dtype) {
  return ((size_t)dtype.bits * dtype.lanes + 7) / 8;
}

bool rt_dtype_is_float(rt_dtype_t dtype) {
  return (dtype.code == kDLFloat &&
          (dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64)) ||
         (dtype.code == kDLBfloat && dtype.bits == 16);
}

bool rt_dtype_is_int(rt_dtype_t dtype) {
  return dtype.code == kDLInt && (dtype.bits == 8 || dtype.bits == 16 ||
                                  dtype.bits == 32 || dtype.bits == 64);
}

bool rt_dtype_is_uint(rt_dtype_t dtype) {
  return dtype.code == kDLUInt && (dtype.bits == 8 || dtype.bits == 16 ||
                                   dtype.bits == 32 || dtype.bits == 64);
}

bool rt_dtype_is_bool(rt_dtype_t dtype) {
  return dtype.code == kDLBool && dtype.bits == 8;
}

bool rt_dtype_is_string(rt_dtype_t dtype) {
  return dtype.code == RT_DTYPE_CODE_STRING && dtype.bits == 128 && dtype.lanes == 1;
}

bool rt_dtype_is_valid(rt_dtype_t dtype) {
  return rt_dtype_is_string(dtype) ||
         (dtype.lanes >= 1 &&
          (rt_dtype_is_float(dtype) || rt_dtype_is_int(dtype) ||
           rt_dtype_is_uint(dtype) || rt_dtype_is_bool(dtype)));
}

const char *rt_dtype_name(rt_dtype_t dtype, char *buf) {
  int n;
  switch (dtype.code) {
    case kDLInt: n = snprintf(buf, RT_DTYPE_NAME_MAX, "int%u", dtype.bits); break;
    case kDLUInt: n = snprintf(buf, RT_DTYPE_NAME_MAX, "uint%u", dtype.bits); break;
    case kDLFloat: n = snprintf(buf, RT_DTYPE_NAME_MAX, "float%u", dtype.bits); break;
    case kDLBfloat: n = snprintf(buf, RT_DTYPE_NAME_MAX, "bfloat%u", dtype.bits); break;
    case kDLComplex: n = snprintf(buf, RT_DTYPE_NAME_MAX, "complex%u", dtype.bits); break;
    case kDLOpaqueHandle: n = snprintf(buf, RT_DTYPE_NAME_MAX, "handle"); break;
    case RT_DTYPE_CODE_STRING:
      n = dtype.bits == 128 ? snprintf(buf, RT_DTYPE_NAME_MAX, "string")
                            : snprintf(buf, RT_DTYPE_NAME_MAX, "string%u", dtype.bits);
      break;
    case kDLBool:
      n = dtype.bits == 8 ? snprintf(buf, RT_DTYPE_NAME_MAX, "bool")
                          : snprintf(buf, RT_DTYPE_NAME_MAX, "bool%u", dtype.bits);
      break;
    default:
      n = snprintf(buf, RT_DTYPE_NAME_MAX, "code%u_%u", dtype.code, dtype.bits);
      break;
  }
  if (dtype.lanes != 1 && n > 0 && n < RT_DTYPE_NAME_MAX) {
    snprintf(buf + n, (size_t)(RT_DTYPE_NAME_MAX - n), "x%u", dtype.lanes);
  }
  return buf;
}

typedef struct {
  const char *name;
  rt_dtype_t dtype;
} named_dtype;

static const named_dtype kNames[] = {
    {"bool", {kDLBool, 8, 1}},        {"uint1", {kDLBool, 8, 1}},
    {"int8", {kDLInt, 8, 1}},         {"int16", {kDLInt, 16, 1}},
    {"int32", {kDLInt, 32, 1}},       {"int64", {kDLInt, 64, 1}},
    {"uint8", {kDLUInt, 8, 1}},       {"uint16", {kDLUInt, 16, 1}},
    {"uint32", {kDLUInt, 32, 1}},     {"uint64", {kDLUInt, 64, 1}},
    {"float16", {kDLFloat, 16, 1}},   {"bfloat16", {kDLBfloat, 16, 1}},
    {"float32", {kDLFloat, 32, 1}},   {"float64", {kDLFloat, 64, 1}},
};

rt_status_t rt_dtype_parse(const char *name, size_t len, rt_dtype_t *out_dtype) {
  if (len == 6 && memcmp(name, "string", 6) == 0) {
    *out_dtype = RT_DTYPE_STRING;
    return RT_OK;
  }
  /* Split "<scalar>x<lanes>"; no scalar name contains an 'x'. */
  size_t base_len = 0;
  while (base_len < len && name[base_len] != 'x') ++base_len;
  uint32_t lanes = 1;
  if (base_len < len) {
    size_t i = base_len + 1;
    if (i == len || name[i] < '1' || name[i] > '9') goto bad;
    lanes = 0;
    for (; i < len; ++i) {
      if (name[i] < '0' || name[i] > '9') goto bad;
      lanes = lanes * 10 + (uint32_t)(name[i] - '0');
      if (lanes > UINT16_MAX) goto bad;
    }
  }
  for (size_t k = 0; k < RT_COUNTOF(kNames); ++k) {
    if (strlen(kNames[k].name) == base_len &&
        memcmp(kNames[k].name, name, base_len) == 0) {
      rt_dtype_t dtype = kNames[k].dtype;
      dtype.lanes = (uint16_t)lanes;
      *out_dtype = dtype;
      return RT_OK;
    }
  }
bad:
  /* Long garbage is cut so the message stays readable. */
  return RT_STATUS(INVALID_ARGUMENT, "unknown dtype '%.*s'%s",
                   (int)(len > 64 ? 64 : len), name, len > 64 ? "..." : "");
}
