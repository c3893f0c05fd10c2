// WRONG on purpose: only block (0, 0) copies its tile.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    if (blockIdx.x != 0 || blockIdx.y != 0) return;
    const int r = threadIdx.x, c = threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
