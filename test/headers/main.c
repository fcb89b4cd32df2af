/* The headers suite: each public header was compiled alone as C and C++
 * into this program (see meson.build); running it checks they link. */
#include <stdio.h>

#define X(h) int rt_header_test_##h##_c(void); int rt_header_test_##h##_cpp(void);
#include "headers.def"
#undef X

int main(void) {
  int bad = 0;
#define X(h) bad += rt_header_test_##h##_c() + rt_header_test_##h##_cpp();
#include "headers.def"
#undef X
  printf("%s\n", bad ? "FAIL" : "ok");
  return bad != 0;
}
