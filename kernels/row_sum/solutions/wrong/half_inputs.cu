// WRONG on purpose: rounds every input to half precision before adding (float32 accumulator).
// launch: {"block": [32, 8, 1], "tile": [1, 8], "smem": 0}
__device__ __forceinline__ float to_half_and_back(float v)
{
    unsigned short h;
    float r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}

extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    const int row = blockIdx.y * 8 + threadIdx.y;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) sum += to_half_and_back(p[c]);
    for (int mask = 16; mask > 0; mask /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
    if (threadIdx.x == 0) out[row] = sum;
}
