// WRONG on purpose (caught by the size class tall_skinny): sums at most 4096 rows, as if the
// matrix were never taller than the timing sizes; only a tall matrix (4099 rows) exposes it.
// catches: tall_skinny
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int rmax = rows < 4096 ? rows : 4096;                   // BUG: rows may be larger
    float s = 0.0f;
    for (int r = 0; r < rmax; ++r) s += X[(size_t)r * cols + c];
    out[c] = s;
}
