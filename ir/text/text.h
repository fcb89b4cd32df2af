/* Internals of the Relay text format (TVM v0.13's form, docs/text-format.md):
 * the lexer's tokens, the metadata section reader/writer, and the float16
 * and float formatting helpers the parser and printer share. Not public:
 * ir/ir.h declares rt_ir_parse_module and rt_ir_print_module. */
#ifndef RT_IR_TEXT_TEXT_H_
#define RT_IR_TEXT_TEXT_H_

#include "ir/ir.h"
#include "runtime/json.h"

/* ---- tokens -------------------------------------------------------------- */

typedef enum rt_ir_tok_kind_e {
  RT_IR_TOK_EOF,
  RT_IR_TOK_IDENT,     /* nn, conv2d, float32, Tensor, meta, _ ... */
  RT_IR_TOK_LOCAL,     /* %x        (text includes the '%') */
  RT_IR_TOK_GRAPH,     /* %3        (text includes the '%') */
  RT_IR_TOK_GLOBAL,    /* @main     (text includes the '@') */
  RT_IR_TOK_INT,       /* 1, -3, 7i16, 1i64 */
  RT_IR_TOK_FLOAT,     /* 1f, 0.5f, 1e-05f, 3f16, inff */
  RT_IR_TOK_BOOL,      /* True / False */
  RT_IR_TOK_STRING,    /* "..." (text includes the quotes) */
  RT_IR_TOK_LPAREN, RT_IR_TOK_RPAREN,
  RT_IR_TOK_LBRACKET, RT_IR_TOK_RBRACKET,
  RT_IR_TOK_LBRACE, RT_IR_TOK_RBRACE,
  RT_IR_TOK_COMMA, RT_IR_TOK_SEMI, RT_IR_TOK_COLON, RT_IR_TOK_PERIOD,
  RT_IR_TOK_EQUAL,     /* = */
  RT_IR_TOK_EQEQ, RT_IR_TOK_NE, RT_IR_TOK_LT, RT_IR_TOK_LE, RT_IR_TOK_GT,
  RT_IR_TOK_GE, RT_IR_TOK_PLUS, RT_IR_TOK_MINUS, RT_IR_TOK_STAR,
  RT_IR_TOK_SLASH,
  RT_IR_TOK_ARROW,     /* -> */
  RT_IR_TOK_QUESTION,  /* ? (Any dim) */
  RT_IR_TOK_ATTR_OPEN, /* #[ */
  RT_IR_TOK_METADATA,  /* #[metadata]: the rest of the file is JSON */
  /* keywords */
  RT_IR_TOK_KW_LET, RT_IR_TOK_KW_FN, RT_IR_TOK_KW_DEF, RT_IR_TOK_KW_IF,
  RT_IR_TOK_KW_ELSE, RT_IR_TOK_KW_TYPE, RT_IR_TOK_KW_MATCH,
  RT_IR_TOK_KW_PMATCH, /* match? */
  RT_IR_TOK_KW_EXTERN, RT_IR_TOK_KW_FREE_VAR, RT_IR_TOK_KW_REF,
  RT_IR_TOK_KW_REF_READ, RT_IR_TOK_KW_REF_WRITE,
} rt_ir_tok_kind_t;

typedef struct rt_ir_token_t {
  rt_ir_tok_kind_t kind;
  const char *text;     /* into the source; `len` bytes */
  size_t len;
  rt_ir_span_t span;    /* end_col is one past the last byte */
  /* Literals: the dtype they denote and their value. For FLOAT, `f` is the
   * decimal text read as a double (attributes keep it), `f32` read as a
   * float (float32 constants), `f16` the float16 bits (RNE of `f`). */
  rt_dtype_t dtype;
  int64_t i;
  double f;
  float f32;
  uint16_t f16;
  bool b;
  size_t meta_offset;   /* METADATA: offset of the JSON text */
} rt_ir_token_t;

/* A pull lexer over one source. Copying the struct saves its state (the
 * parser looks ahead that way). */
typedef struct rt_ir_lexer_t {
  const rt_ir_source_t *source;
  size_t pos;
  int32_t line;
  size_t line_start;
  bool done;            /* after #[metadata]: only EOF remains */
} rt_ir_lexer_t;

void rt_ir_lexer_initialize(const rt_ir_source_t *source,
                            rt_ir_lexer_t *out_lexer);
/* The next token; errors are rt_ir_diag at the offending position. */
RT_MUST_USE_RESULT rt_status_t rt_ir_lex(rt_ir_lexer_t *lexer,
                                         rt_ir_token_t *out_token);
/* Checks the whole source: valid UTF-8, no NUL, and every '\r' followed by
 * '\n'. The error names the first bad byte. */
RT_MUST_USE_RESULT rt_status_t rt_ir_text_check_encoding(
    const rt_ir_source_t *source);
/* The span of the byte at `offset` (for positions found by scanning). */
rt_ir_span_t rt_ir_text_span_at(const rt_ir_source_t *source, size_t offset);

/* ---- number helpers ------------------------------------------------------ */

uint16_t rt_ir_f16_from_double(double value);   /* round to nearest even */
float rt_ir_f16_to_float(uint16_t bits);
/* The shortest "%.*g" form (at least 6 digits, as TVM) that reads back to
 * the same value of `dtype` (float16/32/64), without suffix; "inf"/"-inf"
 * for infinities. `value` is the element's bytes. */
void rt_ir_text_format_float(rt_dtype_t dtype, const void *value,
                             rt_strbuf_t *out);

/* ---- metadata ------------------------------------------------------------ */

/* The relay.Constant entries of a #[metadata] section. JSON values live in
 * the arena given to rt_ir_text_meta_load. */
typedef struct rt_ir_text_meta_t {
  int32_t count;              /* entries of the "relay.Constant" array */
  int32_t *b64_index;         /* per entry: index into b64ndarrays */
  const rt_json_t *b64;       /* the b64ndarrays array */
  int32_t num_b64;
  size_t offset;              /* where the JSON starts in the source */
} rt_ir_text_meta_t;

/* Parses the JSON at source->text[offset..] and checks TVM's node table
 * layout. Errors are rt_ir_diag at the JSON position. */
RT_MUST_USE_RESULT rt_status_t rt_ir_text_meta_load(
    const rt_ir_source_t *source, size_t offset, rt_arena_t *arena,
    rt_ir_text_meta_t *out_meta);
/* Decodes entry `index` (base64 + NDArray record) into a new tensor owned
 * by the caller. `span` positions errors (the meta reference). */
RT_MUST_USE_RESULT rt_status_t rt_ir_text_meta_tensor(
    const rt_ir_text_meta_t *meta, const rt_ir_source_t *source,
    rt_allocator_t allocator, int32_t index, rt_ir_span_t span,
    rt_tensor_t **out_tensor);
/* Appends "#[metadata]\n{...}\n" for `constants` (relay.Constant nodes in
 * meta index order), with _checked_type_ nodes when `typed`. */
void rt_ir_text_meta_write(rt_ir_expr_t *const *constants, int32_t count,
                           bool typed, rt_strbuf_t *out);

/* ---- shared by parser and printer ---------------------------------------- */

/* Prints a type as the text format writes it (1-d shapes without a
 * trailing comma, 1-tuples with one, bare dtype for 0-d tensors). */
void rt_ir_text_print_type(const rt_ir_type_t *type, rt_strbuf_t *out);

#endif /* RT_IR_TEXT_TEXT_H_ */
