// WRONG on purpose: rounds every input to half precision (accumulates in float32).
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
__device__ __forceinline__ float to_half_and_back(float v)
{
    unsigned short h;
    float r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}

extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) sum += to_half_and_back(X[(size_t)r * cols + col]);
    out[col] = sum;
}
