// Device-only AMDGPU build of the dialect test kernels (cmake/amdgpu.cmake compiles this per arch).
#include "simt_kernels.cuh"
