/* Tensors from ONNX TensorProto (rt_onnx_tensor_from_proto): the typed
 * fields (float_data, int32_data holding narrower ints and halves,
 * int64_data, double_data, uint64_data), raw_data (little-endian bytes),
 * string_data (one bytes field per element of a string tensor),
 * and external data in a file beside the model, whose location is
 * resolved against the model's folder and refused when it leaves it
 * (absolute paths, .., symlinks). Sizes are checked against the declared
 * dims before anything is read or allocated. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "frontend/onnx/onnx_impl.h"
#include "runtime/file.h"
#include "runtime/strbuf.h"

/* ---- tensors from TensorProto -------------------------------------------- */

/* Resolves an external data location against the model folder, refusing
 * absolute paths and anything (.., symlinks) that leaves the folder. */
static rt_status_t external_path(const rt_onnx_ctx_t *cx, const char *tname,
                                 const char *location, char **out_path) {
  if (!cx->dir) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: tensor '%s' has external data but the model was not "
                     "loaded from a file", cx->path, tname);
  }
  if (!location || !*location || location[0] == '/') {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: tensor '%s': external data location '%s' must be a "
                     "relative path inside the model's folder",
                     cx->path, tname, location ? location : "");
  }
  char *dir_real = realpath(cx->dir, NULL);
  if (!dir_real) {
    return RT_STATUS(IO_ERROR, "%s: cannot resolve folder '%s': %s", cx->path, cx->dir,
                     strerror(errno));
  }
  size_t need = strlen(cx->dir) + strlen(location) + 2;
  char *joined = rt_mem_alloc(need);
  if (!joined) {
    free(dir_real);
    return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  }
  snprintf(joined, need, "%s/%s", cx->dir, location);
  char *real = realpath(joined, NULL);
  rt_status_t st = RT_OK;
  if (!real) {
    st = RT_STATUS(NOT_FOUND, "%s: tensor '%s': external data file '%s': %s", cx->path,
                   tname, joined, strerror(errno));
  } else {
    size_t n = strlen(dir_real);
    bool inside = strncmp(real, dir_real, n) == 0 &&
                  (real[n] == '/' || (n == 1 && dir_real[0] == '/'));
    if (!inside) {
      st = RT_STATUS(INVALID_ARGUMENT,
                     "%s: tensor '%s': external data location '%s' escapes the "
                     "model's folder", cx->path, tname, location);
    }
  }
  free(dir_real);
  rt_mem_free(joined);
  if (st) {
    free(real);
    return st;
  }
  /* realpath's result is rt_mem_alloc'd; the caller frees ours (rt_mem_free). */
  *out_path = rt_mem_strdup(real);
  free(real);
  if (!*out_path) return RT_STATUS(RESOURCE_EXHAUSTED, "out of memory");
  return RT_OK;
}

static rt_status_t read_external(const rt_onnx_ctx_t *cx, const Onnx__TensorProto *tp,
                                 const char *tname, size_t nbytes, void *dst) {
  const char *location = NULL;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < tp->n_external_data; ++i) {
    const Onnx__StringStringEntryProto *kv = tp->external_data[i];
    if (!kv || !kv->key || !kv->value) continue;
    char *end = NULL;
    if (strcmp(kv->key, "location") == 0) {
      location = kv->value;
    } else if (strcmp(kv->key, "offset") == 0 || strcmp(kv->key, "length") == 0) {
      errno = 0;
      long long v = strtoll(kv->value, &end, 10);
      if (errno || end == kv->value || *end || v < 0) {
        return RT_STATUS(INVALID_ARGUMENT, "%s: tensor '%s': bad external data %s '%s'",
                         cx->path, tname, kv->key, kv->value);
      }
      if (kv->key[0] == 'o') offset = v; else length = v;
    }
  }
  if (length >= 0 && (uint64_t)length != nbytes) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: tensor '%s': external data length %lld does not match "
                     "its %zu bytes", cx->path, tname, (long long)length, nbytes);
  }
  char *path = NULL;
  RT_RETURN_IF_ERROR(external_path(cx, tname, location, &path));
  rt_status_t st = RT_OK;
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f) {
    st = RT_STATUS(IO_ERROR, "%s: tensor '%s': cannot open '%s': %s", cx->path, tname,
                   path, strerror(errno));
  } else if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    st = RT_STATUS(IO_ERROR, "%s: tensor '%s': '%s' is not a regular file", cx->path,
                   tname, path);
  } else if ((uint64_t)offset > (uint64_t)sb.st_size ||
             nbytes > (uint64_t)sb.st_size - (uint64_t)offset) {
    st = RT_STATUS(OUT_OF_RANGE,
                   "%s: tensor '%s': external data at offset %lld, %zu bytes, is "
                   "past the end of '%s' (%lld bytes)", cx->path, tname,
                   (long long)offset, nbytes, location, (long long)sb.st_size);
  } else if (fseeko(f, (off_t)offset, SEEK_SET) != 0 ||
             (nbytes && fread(dst, 1, nbytes, f) != nbytes)) {
    st = RT_STATUS(IO_ERROR, "%s: tensor '%s': reading '%s' failed", cx->path, tname, path);
  }
  if (f) fclose(f);
  rt_mem_free(path);
  return st;
}

/* A string tensor: string_data, one entry per element (raw_data and
 * external data have no string form). */
static rt_status_t strings_from_proto(const rt_onnx_ctx_t *cx, const Onnx__TensorProto *tp,
                                      const char *tname, int64_t numel, rt_tensor_t **out) {
  if (tp->has_raw_data || (tp->has_data_location &&
                           tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: string tensor '%s' must hold its strings in string_data",
                     cx->path, tname);
  }
  if ((int64_t)tp->n_string_data != numel) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: tensor '%s' has %zu strings for %lld elements",
                     cx->path, tname, tp->n_string_data, (long long)numel);
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (size_t d = 0; d < tp->n_dims; ++d) shape[d] = tp->dims[d];
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, RT_DTYPE_STRING, (int32_t)tp->n_dims, shape, &t));
  rt_status_t st = RT_OK;
  for (int64_t i = 0; !st && i < numel; ++i) {
    st = rt_tensor_set_string(t, i, (const char *)tp->string_data[i].data, tp->string_data[i].len);
  }
  if (st) {
    rt_tensor_release(t);
    return st;
  }
  *out = t;
  return RT_OK;
}

rt_status_t rt_onnx_tensor_from_proto(const rt_onnx_ctx_t *cx, const Onnx__TensorProto *tp,
                                      rt_tensor_t **out) {
  const char *tname = tp->name ? tp->name : "";
  rt_dtype_t dt;
  if (!rt_onnx_dtype(tp->data_type, &dt)) {
    return RT_STATUS(UNIMPLEMENTED, "%s: tensor '%s' has unsupported data type %s (%d)",
                     cx->path, tname, rt_onnx_type_name(tp->data_type), (int)tp->data_type);
  }
  if (tp->n_dims > RT_TENSOR_MAX_RANK) {
    return RT_STATUS(UNIMPLEMENTED, "%s: tensor '%s' has rank %zu (at most %d)", cx->path,
                     tname, tp->n_dims, RT_TENSOR_MAX_RANK);
  }
  if (tp->segment) {
    return RT_STATUS(UNIMPLEMENTED, "%s: tensor '%s' is segmented", cx->path, tname);
  }
  int64_t numel = 1;
  for (size_t d = 0; d < tp->n_dims; ++d) {
    if (tp->dims[d] < 0 || (tp->dims[d] && numel > INT64_MAX / 16 / tp->dims[d])) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: tensor '%s' has a bad shape", cx->path, tname);
    }
    numel *= tp->dims[d];
  }
  if (rt_dtype_is_string(dt)) return strings_from_proto(cx, tp, tname, numel, out);
  size_t esize = rt_dtype_size(dt);
  size_t nbytes = (size_t)numel * esize;
  bool external = tp->has_data_location &&
                  tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
  /* Check the payload's size before allocating: a 12-byte message must not
   * make us allocate a terabyte. */
  size_t have = 0;
  const char *field = NULL;
  if (external) {
    have = nbytes;
  } else if (tp->has_raw_data) {
    have = tp->raw_data.len;
    field = "raw_data";
  } else {
    switch (tp->data_type) {
      case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: have = tp->n_float_data; field = "float_data"; break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: have = tp->n_int64_data; field = "int64_data"; break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: have = tp->n_double_data; field = "double_data"; break;
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
      case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: have = tp->n_uint64_data; field = "uint64_data"; break;
      default: have = tp->n_int32_data; field = "int32_data"; break;
    }
    have *= esize;
  }
  if (have != nbytes) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: tensor '%s' has %zu bytes of %s for %lld elements of %zu bytes",
                     cx->path, tname, have, field ? field : "data", (long long)numel, esize);
  }
  int64_t shape[RT_TENSOR_MAX_RANK];
  for (size_t d = 0; d < tp->n_dims; ++d) shape[d] = tp->dims[d];
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR(rt_tensor_create(cx->m->allocator, dt, (int32_t)tp->n_dims, shape, &t));
  uint8_t *dst = rt_tensor_data(t);
  rt_status_t st = RT_OK;
  if (external) {
    st = read_external(cx, tp, tname, nbytes, dst);
  } else if (tp->has_raw_data) {
    if (nbytes) memcpy(dst, tp->raw_data.data, nbytes);
  } else {
    for (int64_t i = 0; i < numel; ++i) {
      switch (tp->data_type) {
        case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: ((float *)dst)[i] = tp->float_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: ((int64_t *)dst)[i] = tp->int64_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: ((double *)dst)[i] = tp->double_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: ((uint32_t *)dst)[i] = (uint32_t)tp->uint64_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: ((uint64_t *)dst)[i] = tp->uint64_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: ((int32_t *)dst)[i] = tp->int32_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: ((int16_t *)dst)[i] = (int16_t)tp->int32_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: ((int8_t *)dst)[i] = (int8_t)tp->int32_data[i]; break;
        case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: ((uint8_t *)dst)[i] = tp->int32_data[i] != 0; break;
        default: /* uint8, uint16, float16, bfloat16: the low bits */
          if (esize == 1) ((uint8_t *)dst)[i] = (uint8_t)tp->int32_data[i];
          else ((uint16_t *)dst)[i] = (uint16_t)tp->int32_data[i];
          break;
      }
    }
  }
  if (st) {
    rt_tensor_release(t);
    return st;
  }
  *out = t;
  return RT_OK;
}
