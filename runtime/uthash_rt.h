/* uthash as the library uses it: its tables come from the library heap
 * (runtime/mem.h), and running out of memory never exits the process
 * (HASH_NONFATAL_OOM: a failed add leaves the item out and calls
 * uthash_nonfatal_oom, which a file may define to record the failure). */
#ifndef RT_RUNTIME_UTHASH_RT_H_
#define RT_RUNTIME_UTHASH_RT_H_

#include "runtime/mem.h"

#ifndef HASH_NONFATAL_OOM
#define HASH_NONFATAL_OOM 1
#endif
#define uthash_malloc(sz) rt_mem_alloc(sz)
#define uthash_free(ptr, sz) rt_mem_free(ptr)
#include <uthash.h>

#endif /* RT_RUNTIME_UTHASH_RT_H_ */
