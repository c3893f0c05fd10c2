// WRONG on purpose: writes zeros.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    const int r = blockIdx.x * 32 + threadIdx.x;
    const int c = blockIdx.y * 32 + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = 0.0f;
}
