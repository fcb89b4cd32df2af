/* .npy files (numpy's NEP 1 format), read and written.
 *
 * Layout: "\x93NUMPY", major, minor, a header length (u16 for 1.0, u32 for
 * 2.0 and 3.0), the header -- a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * padded with spaces and ended by '\n' -- then the raw C-order data.
 *
 * The reader parses the header with a small recursive-descent parser over
 * the subset of Python literals numpy writes (strings, True/False, tuples
 * of ints, including Python 2's "3L"), requires exactly the three keys, and
 * checks every size against the bytes actually present before it
 * allocates. Only little-endian ('<', '=' or '|' for one-byte types) bool,
 * int, uint and float descrs are accepted; everything else is an error that
 * names the source. The writer reproduces numpy's own output byte for byte
 * (numpy 1.24 `np.save`): keys sorted, repr() of the shape, the growth
 * padding numpy reserves for the first axis, and padding so the data
 * starts at a multiple of 64.
 *
 * Strings: numpy's fixed-width unicode descr '<Un' is n UTF-32 code units
 * per element, NUL-padded; it reads as a string tensor (RT_DTYPE_STRING),
 * each element converted to UTF-8 with its trailing NULs dropped (as numpy
 * itself drops them), and a string tensor is written as '<Un' with n its
 * longest string in code points (at least 1, as numpy's dtype for ['']). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/tensor.h"
#include "runtime/bytes.h"
#include "runtime/file.h"
#include "runtime/size.h"
#include "runtime/strbuf.h"
#include "runtime/tensor_impl.h"
#include "runtime/mem.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
/* numpy's GROWTH_AXIS_MAX_DIGITS: room left to rewrite shape[0] in place. */
#define NPY_GROWTH_DIGITS 21

/* ---- header parsing -------------------------------------------------- */

typedef struct {
  const char *src;  /* source name for messages */
  const char *text; /* the header */
  size_t len;
  size_t pos;
} hparser;

typedef struct {
  bool have_descr, have_fortran, have_shape;
  char descr[16];
  bool fortran_order;
  int32_t rank;
  int64_t shape[RT_TENSOR_MAX_RANK];
} npy_header;

static rt_status_t herror(const hparser *p, const char *what) {
  return RT_STATUS(INVALID_ARGUMENT, "%s: malformed .npy header: %s at header byte %zu",
                   p->src, what, p->pos);
}

static void skip_ws(hparser *p) {
  while (p->pos < p->len && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t' ||
                             p->text[p->pos] == '\n' || p->text[p->pos] == '\r')) {
    ++p->pos;
  }
}

static bool eat(hparser *p, char c) {
  skip_ws(p);
  if (p->pos < p->len && p->text[p->pos] == c) {
    ++p->pos;
    return true;
  }
  return false;
}

static bool peek(hparser *p, char c) {
  skip_ws(p);
  return p->pos < p->len && p->text[p->pos] == c;
}

/* string := "'" chars "'" | '"' chars '"'   (no escapes) */
static rt_status_t parse_string(hparser *p, const char **out_s, size_t *out_len) {
  skip_ws(p);
  if (p->pos >= p->len || (p->text[p->pos] != '\'' && p->text[p->pos] != '"')) {
    return herror(p, "expected a string");
  }
  char quote = p->text[p->pos++];
  size_t start = p->pos;
  while (p->pos < p->len && p->text[p->pos] != quote) {
    if (p->text[p->pos] == '\\' || p->text[p->pos] == '\n') {
      return herror(p, "unsupported character in string");
    }
    ++p->pos;
  }
  if (p->pos >= p->len) return herror(p, "unterminated string");
  *out_s = p->text + start;
  *out_len = p->pos - start;
  ++p->pos;
  return RT_OK;
}

/* int := digit+ ['L'] */
static rt_status_t parse_dim(hparser *p, int64_t *out_dim) {
  skip_ws(p);
  if (p->pos >= p->len || p->text[p->pos] < '0' || p->text[p->pos] > '9') {
    return herror(p, "expected a non-negative integer in the shape");
  }
  int64_t v = 0;
  while (p->pos < p->len && p->text[p->pos] >= '0' && p->text[p->pos] <= '9') {
    int digit = p->text[p->pos] - '0';
    if (v > (INT64_MAX - digit) / 10) return herror(p, "shape dimension too large");
    v = v * 10 + digit;
    ++p->pos;
  }
  if (p->pos < p->len && p->text[p->pos] == 'L') ++p->pos;
  *out_dim = v;
  return RT_OK;
}

/* tuple := '(' [int (',' int)* [',']] ')'   -- one element needs its ',' */
static rt_status_t parse_shape(hparser *p, npy_header *h) {
  if (!eat(p, '(')) return herror(p, "expected '(' starting the shape tuple");
  h->rank = 0;
  bool trailing_comma = false;
  while (!peek(p, ')')) {
    if (h->rank == RT_TENSOR_MAX_RANK) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: .npy shape has more than %d dims",
                       p->src, RT_TENSOR_MAX_RANK);
    }
    RT_RETURN_IF_ERROR(parse_dim(p, &h->shape[h->rank++]));
    trailing_comma = eat(p, ',');
    if (!trailing_comma && !peek(p, ')')) return herror(p, "expected ',' or ')' in shape");
  }
  ++p->pos; /* ')' */
  if (h->rank == 1 && !trailing_comma) {
    return herror(p, "shape '(n)' is not a tuple (Python needs '(n,)')");
  }
  return RT_OK;
}

static rt_status_t parse_bool(hparser *p, bool *out) {
  skip_ws(p);
  const char *rest = p->text + p->pos;
  size_t left = p->len - p->pos;
  if (left >= 4 && memcmp(rest, "True", 4) == 0) {
    p->pos += 4;
    *out = true;
    return RT_OK;
  }
  if (left >= 5 && memcmp(rest, "False", 5) == 0) {
    p->pos += 5;
    *out = false;
    return RT_OK;
  }
  return herror(p, "expected True or False for 'fortran_order'");
}

/* dict := '{' [item (',' item)* [',']] '}'    item := string ':' value */
static rt_status_t parse_header_dict(hparser *p, npy_header *h) {
  if (!eat(p, '{')) return herror(p, "expected '{'");
  while (!peek(p, '}')) {
    const char *key = NULL;
    size_t key_len = 0;
    RT_RETURN_IF_ERROR(parse_string(p, &key, &key_len));
    if (!eat(p, ':')) return herror(p, "expected ':' after a key");
    if (key_len == 5 && memcmp(key, "descr", 5) == 0) {
      if (h->have_descr) return herror(p, "duplicate key 'descr'");
      const char *s = NULL;
      size_t n = 0;
      if (peek(p, '[')) {
        return RT_STATUS(INVALID_ARGUMENT,
                         "%s: structured .npy dtypes (a descr list) are not "
                         "supported", p->src);
      }
      RT_RETURN_IF_ERROR(parse_string(p, &s, &n));
      if (n >= sizeof h->descr) return herror(p, "descr too long");
      memcpy(h->descr, s, n);
      h->descr[n] = '\0';
      h->have_descr = true;
    } else if (key_len == 13 && memcmp(key, "fortran_order", 13) == 0) {
      if (h->have_fortran) return herror(p, "duplicate key 'fortran_order'");
      RT_RETURN_IF_ERROR(parse_bool(p, &h->fortran_order));
      h->have_fortran = true;
    } else if (key_len == 5 && memcmp(key, "shape", 5) == 0) {
      if (h->have_shape) return herror(p, "duplicate key 'shape'");
      RT_RETURN_IF_ERROR(parse_shape(p, h));
      h->have_shape = true;
    } else {
      return RT_STATUS(INVALID_ARGUMENT, "%s: .npy header has unexpected key '%.*s'",
                       p->src, (int)(key_len > 32 ? 32 : key_len), key);
    }
    if (!eat(p, ',') && !peek(p, '}')) return herror(p, "expected ',' or '}'");
  }
  ++p->pos; /* '}' */
  skip_ws(p);
  if (p->pos != p->len) return herror(p, "unexpected text after the dict");
  if (!h->have_descr || !h->have_fortran || !h->have_shape) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: .npy header is missing key '%s'", p->src,
                     !h->have_descr ? "descr" : !h->have_fortran ? "fortran_order"
                                                                 : "shape");
  }
  return RT_OK;
}

/* descr := byteorder kind size, e.g. '<f4', '|b1'. */
static rt_status_t descr_to_dtype(const char *src, const char *descr,
                                  rt_dtype_t *out_dtype, int *out_width) {
  size_t n = strlen(descr);
  if (n < 2) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: unsupported .npy descr '%s'", src, descr);
  }
  char order = descr[0], kind = descr[1];
  if (kind == 'O') {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: object arrays (descr '%s') are not supported", src, descr);
  }
  if (kind == 'V') {
    return RT_STATUS(UNIMPLEMENTED,
                     "%s: raw void descr '%s' is not supported (bfloat16 has no "
                     "numpy descr; save it as float32 or uint16)", src, descr);
  }
  int size = 0;
  for (size_t i = 2; i < n; ++i) {
    if (descr[i] < '0' || descr[i] > '9' || size > 1000) {
      return RT_STATUS(INVALID_ARGUMENT, "%s: unsupported .npy descr '%s'", src, descr);
    }
    size = size * 10 + (descr[i] - '0');
  }
  rt_dtype_t dtype = {0, 0, 1};
  bool known = true;
  if (kind == 'U') {
    if (order != '<' && order != '=' && order != '|') {
      return RT_STATUS(INVALID_ARGUMENT,
                       "%s: big-endian data not supported (descr '%s')", src, descr);
    }
    if (n < 3) return RT_STATUS(INVALID_ARGUMENT, "%s: unsupported .npy descr '%s'", src, descr);
    *out_dtype = RT_DTYPE_STRING;
    *out_width = size;
    return RT_OK;
  }
  switch (kind) {
    case 'b': dtype = RT_DTYPE_BOOL; known = size == 1; break;
    case 'i': dtype.code = kDLInt; break;
    case 'u': dtype.code = kDLUInt; break;
    case 'f': dtype.code = kDLFloat; break;
    default: known = false; break;
  }
  if (kind != 'b') {
    known = known && (size == 1 || size == 2 || size == 4 || size == 8) &&
            !(kind == 'f' && size == 1);
    dtype.bits = (uint8_t)(size * 8);
  }
  if (!known) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: unsupported .npy descr '%s'", src, descr);
  }
  if (order == '>' && size > 1) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: big-endian data not supported (descr '%s')", src, descr);
  }
  if (order == '|' && size > 1) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: descr '%s' has no byte order for a multi-byte type", src,
                     descr);
  }
  if (order != '<' && order != '=' && order != '|' && order != '>') {
    return RT_STATUS(INVALID_ARGUMENT, "%s: bad byte order in .npy descr '%s'", src,
                     descr);
  }
  *out_dtype = dtype;
  return RT_OK;
}

/* ---- strings ------------------------------------------------------------ */

/* UTF-8 bytes of code point c into out (4 bytes room); 0 when c is not a
 * Unicode scalar value. */
static int utf8_put(uint32_t c, char *out) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c >= 0xD800 && c <= 0xDFFF) return 0;
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | (c >> 12));
    out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  if (c > 0x10FFFF) return 0;
  out[0] = (char)(0xF0 | (c >> 18));
  out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

/* Decodes one code point of s[0 .. n) into *c; its length, or 0 when the
 * bytes are not well-formed UTF-8 (overlong forms and surrogates too). */
static int utf8_get(const unsigned char *s, int64_t n, uint32_t *c) {
  if (s[0] < 0x80) {
    *c = s[0];
    return 1;
  }
  int len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
  if (len == 0 || s[0] > 0xF4 || n < len) return 0;
  uint32_t v = s[0] & (0x7F >> len);
  for (int i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min_of_len[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < min_of_len[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *c = v;
  return len;
}

static rt_status_t read_strings(const char *src, const uint8_t *data, int width,
                                rt_tensor_t *t) {
  char *buf = rt_mem_alloc(4 * (size_t)width + 1);
  if (!buf) return RT_STATUS(RESOURCE_EXHAUSTED, "reading %s: out of memory", src);
  rt_status_t st = RT_OK;
  for (int64_t i = 0; !st && i < t->numel; ++i) {
    const uint8_t *e = data + (size_t)i * 4 * (size_t)width;
    int len = width;
    while (len > 0 && rt_le_u32(e + 4 * (size_t)(len - 1)) == 0) --len;
    size_t nb = 0;
    for (int k = 0; k < len; ++k) {
      uint32_t c = rt_le_u32(e + 4 * (size_t)k);
      int m = utf8_put(c, buf + nb);
      if (m == 0) {
        st = RT_STATUS(INVALID_ARGUMENT, "%s: element %lld holds U+%X, not a Unicode character",
                       src, (long long)i, (unsigned)c);
        break;
      }
      nb += (size_t)m;
    }
    if (!st) st = rt_tensor_set_string(t, i, buf, nb);
  }
  rt_mem_free(buf);
  return st;
}

/* The '<Un' data of a string tensor: n = the longest string in code
 * points (at least 1), each element NUL-padded to n UTF-32 units. */
static rt_status_t encode_strings(const rt_tensor_t *tensor, const char *path, int64_t *out_width,
                                  uint8_t **out_data, size_t *out_size) {
  rt_string_t *s = rt_mem_alloc(tensor->nbytes ? tensor->nbytes : 1);
  if (!s) return RT_STATUS(RESOURCE_EXHAUSTED, "writing %s: out of memory", path);
  rt_tensor_copy_compact(tensor, s);
  rt_status_t st = RT_OK;
  int64_t width = 1;
  for (int64_t i = 0; !st && i < tensor->numel; ++i) {
    int64_t cps = 0;
    for (int64_t k = 0; k < s[i].size;) {
      uint32_t c = 0;
      int m = utf8_get((const unsigned char *)s[i].data + k, s[i].size - k, &c);
      if (m == 0) {
        st = RT_STATUS(INVALID_ARGUMENT, "%s: element %lld is not valid UTF-8 (byte %lld)", path,
                       (long long)i, (long long)k);
        break;
      }
      k += m;
      ++cps;
    }
    if (cps > width) width = cps;
  }
  size_t total = 0;
  if (!st) st = rt_size_of_shape(tensor->rank, tensor->shape, 4 * (size_t)width, &total);
  uint8_t *out = NULL;
  if (!st) {
    out = rt_mem_alloc(total ? total : 1);
    if (!out) st = RT_STATUS(RESOURCE_EXHAUSTED, "writing %s: out of memory", path);
  }
  if (!st) {
    memset(out, 0, total);
    for (int64_t i = 0; i < tensor->numel; ++i) {
      uint8_t *e = out + (size_t)i * 4 * (size_t)width;
      for (int64_t k = 0; k < s[i].size;) {
        uint32_t c = 0;
        k += utf8_get((const unsigned char *)s[i].data + k, s[i].size - k, &c);
        e[0] = (uint8_t)c;
        e[1] = (uint8_t)(c >> 8);
        e[2] = (uint8_t)(c >> 16);
        e[3] = (uint8_t)(c >> 24);
        e += 4;
      }
    }
  }
  rt_mem_free(s);
  if (st) {
    rt_mem_free(out);
    return st;
  }
  *out_width = width;
  *out_data = out;
  *out_size = total;
  return RT_OK;
}

rt_status_t rt_npy_read_memory(rt_allocator_t allocator, const void *bytes,
                               size_t size, const char *source_name,
                               rt_tensor_t **out_tensor) {
  const uint8_t *b = bytes;
  const char *src = source_name ? source_name : "<memory>";
  size_t magic_len = size < NPY_MAGIC_LEN ? size : NPY_MAGIC_LEN;
  if (size == 0 || memcmp(b, NPY_MAGIC, magic_len) != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: not a .npy file (bad magic)", src);
  }
  if (size < NPY_MAGIC_LEN + 2) {
    return RT_STATUS(DATA_LOSS, "%s: truncated .npy file (%zu bytes)", src, size);
  }
  uint8_t major = b[6], minor = b[7];
  size_t prefix = major == 1 ? 10 : 12;
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return RT_STATUS(INVALID_ARGUMENT, "%s: unsupported .npy format version %u.%u",
                     src, major, minor);
  }
  if (size < prefix) {
    return RT_STATUS(DATA_LOSS, "%s: truncated .npy file (%zu bytes, no header length)",
                     src, size);
  }
  size_t header_len = major == 1 ? rt_le_u16(b + 8) : rt_le_u32(b + 8);
  if (header_len > size - prefix) {
    return RT_STATUS(DATA_LOSS,
                     "%s: truncated .npy header: header length %zu runs past the "
                     "end of the file (%zu bytes)", src, header_len, size);
  }
  npy_header h;
  memset(&h, 0, sizeof h);
  hparser p = {src, (const char *)b + prefix, header_len, 0};
  RT_RETURN_IF_ERROR(parse_header_dict(&p, &h));
  if (h.fortran_order) {
    return RT_STATUS(INVALID_ARGUMENT,
                     "%s: fortran_order arrays are not supported (save a "
                     "C-contiguous array)", src);
  }
  rt_dtype_t dtype;
  int width = 0;
  RT_RETURN_IF_ERROR(descr_to_dtype(src, h.descr, &dtype, &width));
  const bool is_str = rt_dtype_is_string(dtype);
  size_t data_start = prefix + header_len;
  size_t remaining = size - data_start;
  size_t nbytes = 0;
  rt_status_t status = rt_size_of_shape(h.rank, h.shape,
                                        is_str ? 4 * (size_t)width : rt_dtype_size(dtype), &nbytes);
  if (status) {
    rt_status_free(status);
    return RT_STATUS(DATA_LOSS, "%s: .npy shape is too large for any file", src);
  }
  if (nbytes != remaining) {
    return RT_STATUS(DATA_LOSS,
                     "%s: .npy header says %zu data bytes (shape x '%s'), the file "
                     "has %zu%s", src, nbytes, h.descr, remaining,
                     nbytes > remaining ? " (truncated)" : " (trailing bytes)");
  }
  rt_tensor_t *t = NULL;
  RT_RETURN_IF_ERROR_ANNOTATE(rt_tensor_create(allocator, dtype, h.rank, h.shape, &t),
                              "reading %s", src);
  if (is_str) {
    status = read_strings(src, b + data_start, width, t);
    if (status) {
      rt_tensor_release(t);
      return status;
    }
    *out_tensor = t;
    return RT_OK;
  }
  if (nbytes) memcpy(t->data, b + data_start, nbytes);
  if (rt_dtype_is_bool(dtype)) {
    /* numpy reads any non-zero byte as True; our bools are exactly 0/1. */
    uint8_t *d = t->data;
    for (size_t i = 0; i < nbytes; ++i) d[i] = d[i] != 0;
  }
  *out_tensor = t;
  return RT_OK;
}

rt_status_t rt_npy_read_file(rt_allocator_t allocator, const char *path,
                             rt_tensor_t **out_tensor) {
  char *data = NULL;
  size_t size = 0;
  RT_RETURN_IF_ERROR(rt_file_read(path, (size_t)PTRDIFF_MAX, &data, &size));
  rt_status_t status = rt_npy_read_memory(allocator, data, size, path, out_tensor);
  rt_mem_free(data);
  return status;
}

/* ---- writing ----------------------------------------------------------- */

static const char *dtype_descr(rt_dtype_t dtype) {
  if (dtype.lanes != 1) return NULL;
  if (rt_dtype_is_bool(dtype)) return "|b1";
  switch (dtype.code) {
    case kDLInt:
      switch (dtype.bits) {
        case 8: return "|i1";
        case 16: return "<i2";
        case 32: return "<i4";
        case 64: return "<i8";
      }
      break;
    case kDLUInt:
      switch (dtype.bits) {
        case 8: return "|u1";
        case 16: return "<u2";
        case 32: return "<u4";
        case 64: return "<u8";
      }
      break;
    case kDLFloat:
      switch (dtype.bits) {
        case 16: return "<f2";
        case 32: return "<f4";
        case 64: return "<f8";
      }
      break;
  }
  return NULL;
}

rt_status_t rt_npy_write_file(const rt_tensor_t *tensor, const char *path) {
  char name[RT_DTYPE_NAME_MAX];
  const char *descr = dtype_descr(tensor->dtype);
  uint8_t *str_data = NULL;
  size_t str_size = 0;
  char str_descr[32];
  if (rt_dtype_is_string(tensor->dtype)) {
    int64_t width = 0;
    RT_RETURN_IF_ERROR(encode_strings(tensor, path, &width, &str_data, &str_size));
    snprintf(str_descr, sizeof str_descr, "<U%lld", (long long)width);
    descr = str_descr;
  }
  if (!descr) {
    return RT_STATUS(UNIMPLEMENTED, "%s: %s has no numpy descr; cannot write .npy",
                     path, rt_dtype_name(tensor->dtype, name));
  }
  rt_strbuf_t header, file;
  rt_strbuf_initialize(&header);
  rt_strbuf_initialize(&file);
  rt_strbuf_printf(&header, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
  for (int32_t i = 0; i < tensor->rank; ++i) {
    rt_strbuf_printf(&header, i ? ", %lld" : "%lld", (long long)tensor->shape[i]);
  }
  rt_strbuf_puts(&header, tensor->rank == 1 ? ",), }" : "), }");
  if (tensor->rank > 0) {
    int digits = snprintf(NULL, 0, "%lld", (long long)tensor->shape[0]);
    for (int i = digits; i < NPY_GROWTH_DIGITS; ++i) rt_strbuf_putc(&header, ' ');
  }
  /* As numpy's _wrap_header: hlen counts the '\n', the padding is never
   * 0, and version 2.0 is used only when 1.0's u16 length cannot hold it. */
  size_t hlen = header.len + 1;
  size_t prefix = 10;
  int major = 1;
  if (hlen + NPY_ALIGN - (prefix + hlen) % NPY_ALIGN > UINT16_MAX) {
    major = 2;
    prefix = 12;
  }
  size_t pad = NPY_ALIGN - (prefix + hlen) % NPY_ALIGN;
  for (size_t i = 0; i < pad; ++i) rt_strbuf_putc(&header, ' ');
  rt_strbuf_putc(&header, '\n');

  if (header.failed) file.failed = true;
  rt_strbuf_append(&file, NPY_MAGIC, NPY_MAGIC_LEN);
  rt_strbuf_putc(&file, (char)major);
  rt_strbuf_putc(&file, 0);
  if (major == 1) {
    rt_put_le_u16(&file, (uint16_t)header.len);
  } else {
    rt_put_le_u32(&file, (uint32_t)header.len);
  }
  rt_strbuf_append(&file, header.data, header.len);
  char *bytes = NULL;
  size_t total = 0;
  rt_status_t status = RT_OK;
  if (str_data) {
    rt_strbuf_append(&file, (const char *)str_data, str_size);
  } else if (rt_dtype_is_string(tensor->dtype)) {
    /* no elements */
  } else if (rt_tensor_is_compact(tensor)) {
    rt_strbuf_append(&file, rt_tensor_data(tensor), tensor->nbytes);
  } else if (!file.failed) {
    void *data = rt_mem_alloc(tensor->nbytes ? tensor->nbytes : 1);
    if (data) {
      rt_tensor_copy_compact(tensor, data);
      rt_strbuf_append(&file, data, tensor->nbytes);
    } else {
      file.failed = true;
    }
    rt_mem_free(data);
  }
  status = rt_strbuf_finish(&file, &bytes, &total);
  if (!status) status = rt_file_write(path, bytes, total);
  rt_mem_free(bytes);
  rt_mem_free(str_data);
  rt_strbuf_deinitialize(&header);
  rt_strbuf_deinitialize(&file);
  return status;
}
