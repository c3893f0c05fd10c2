// WRONG on purpose: passes every value through half precision on the way.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    const int r = blockIdx.x * 32 + threadIdx.x;
    const int c = blockIdx.y * 32 + threadIdx.y;
    if (r < rows && c < cols) {
        unsigned short h;
        float v;
        asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(in[(size_t)r * cols + c]));
        asm("cvt.f32.f16 %0, %1;" : "=f"(v) : "h"(h));
        out[(size_t)c * rows + r] = v;
    }
}
