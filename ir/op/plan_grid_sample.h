/* Plan of image.grid_sample (ir/op/grid_sample.c). Included by
 * ir/op/plan.h. */
#ifndef RT_IR_OP_PLAN_GRID_SAMPLE_H_
#define RT_IR_OP_PLAN_GRID_SAMPLE_H_

typedef enum rt_grid_method_e {
  RT_GRID_NEAREST,
  RT_GRID_BILINEAR,
  RT_GRID_BICUBIC
} rt_grid_method_t;

typedef enum rt_grid_padding_e {
  RT_GRID_ZEROS,      /* samples outside the input read 0 */
  RT_GRID_BORDER,     /* coordinates clamp to the edge */
  RT_GRID_REFLECTION  /* coordinates reflect at the edges */
} rt_grid_padding_t;

/* image.grid_sample(data (N, C, H, W), grid (N, 2, OH, OW)) -> (N, C, OH,
 * OW): grid[n, 0] is x (along W), grid[n, 1] y (along H), both in
 * [-1, 1] for the input's extent (corner pixels' centers with
 * align_corners, their outer edges without). Float dtypes only. */
typedef struct rt_plan_grid_sample_t {
  rt_grid_method_t method;
  rt_grid_padding_t padding;
  bool align_corners;
  int64_t out_shape[4];
} rt_plan_grid_sample_t;

RT_MUST_USE_RESULT rt_status_t rt_ir_plan_grid_sample(const rt_ir_attrs_t *attrs, int32_t n,
                                                      const rt_plan_input_t *in,
                                                      rt_plan_grid_sample_t *out_plan);

#endif /* RT_IR_OP_PLAN_GRID_SAMPLE_H_ */
