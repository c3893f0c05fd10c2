// WRONG on purpose (caught by the size class mod_tile): rows are summed in 64-row chunks while
// r0 + 64 < rows, then a tail from (rows / 64) * 64; when rows is a multiple of 64 the last whole
// chunk falls between the two loops.
// catches: mod_tile
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r0 = 0; r0 + 64 < rows; r0 += 64)                    // BUG: should be r0 + 64 <= rows
        for (int r = r0; r < r0 + 64; ++r) s += X[(size_t)r * cols + c];
    for (int r = (rows / 64) * 64; r < rows; ++r) s += X[(size_t)r * cols + c];
    out[c] = s;
}
