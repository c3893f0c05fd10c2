// WRONG on purpose: rounds A and B to half precision (accumulates in float32) -- what a
// half-precision tensor-core kernel would compute.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
__device__ __forceinline__ float to_half_and_back(float v)
{
    unsigned short h;
    float r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += to_half_and_back(A[(size_t)row * K + k]) * to_half_and_back(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
