// nvshmem_stub.h: just enough of NVSHMEM's declarations (nvshmem.h,
// nvshmemx.h, 3.x) for a plain C++ compiler to check the programs that
// the CUDA backend writes for modules that use the world:
//
//	g++ -std=c++17 -fsyntax-only -include cuda_stub.h -include nvshmem_stub.h prog.cu
//
// Nothing here runs. Signatures follow NVSHMEM's, so that argument types
// are checked as nvcc would check them.
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int version;
  char internal[124];
} nvshmemx_uniqueid_t;
typedef struct {
  int version;
  char internal[1024];
} nvshmemx_init_attr_t;
#define NVSHMEMX_UNIQUEID_INITIALIZER {}
#define NVSHMEMX_INIT_ATTR_INITIALIZER {}
enum { NVSHMEMX_INIT_WITH_UNIQUEID = 1 << 3 };
typedef int32_t nvshmem_team_t;
#define NVSHMEM_TEAM_WORLD ((nvshmem_team_t)0)

int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *id);
int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks, const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr);
int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attributes);
void nvshmem_finalize(void);
int nvshmem_my_pe(void);
int nvshmem_n_pes(void);
void *nvshmem_malloc(size_t size);
void nvshmem_free(void *ptr);
void *nvshmem_ptr(const void *dest, int pe);
void nvshmem_barrier_all(void);
void nvshmemx_barrier_all_on_stream(cudaStream_t stream);
void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);

