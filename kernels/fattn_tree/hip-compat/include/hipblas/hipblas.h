// Gap: Debian bookworm packages no hipBLAS, and the tree's vendors/hip.h includes <hipblas/hipblas.h> for its cuBLAS
// aliases. The flash-attention kernels call no BLAS; what the tree's common.cuh still names in declarations is the
// handle and status types (ggml_backend_cuda_context's handle cache, its error-string switch) and, in inline host code
// tileprobe never calls, hipblasCreate / hipblasSetStream. Those two are declared and never defined: code that used
// them would fail to link instead of running without BLAS. Names and enumerators as hipBLAS's API spells them
// (https://rocm.docs.amd.com/projects/hipBLAS/en/latest/reference/data-type-support.html).
#pragma once

#include <hip/hip_runtime_api.h>

typedef void* hipblasHandle_t;
typedef enum {
  HIPBLAS_STATUS_SUCCESS = 0,
  HIPBLAS_STATUS_NOT_INITIALIZED = 1,
  HIPBLAS_STATUS_ALLOC_FAILED = 2,
  HIPBLAS_STATUS_INVALID_VALUE = 3,
  HIPBLAS_STATUS_MAPPING_ERROR = 4,
  HIPBLAS_STATUS_EXECUTION_FAILED = 5,
  HIPBLAS_STATUS_INTERNAL_ERROR = 6,
  HIPBLAS_STATUS_NOT_SUPPORTED = 7,
  HIPBLAS_STATUS_ARCH_MISMATCH = 8,
} hipblasStatus_t;

hipblasStatus_t hipblasCreate(hipblasHandle_t* handle);
hipblasStatus_t hipblasSetStream(hipblasHandle_t handle, hipStream_t stream);
