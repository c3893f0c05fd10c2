// WRONG on purpose (caught by the size classes tile_plus_one and one): the number of 32-row chunks
// is (rows + 30) / 32 instead of (rows + 31) / 32, so when rows is one past a multiple of 32 the
// last row is never added.
// catches: tile_plus_one, one
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int chunks = (rows + 30) / 32;                          // BUG: ceil(rows / 32) is (rows + 31) / 32
    float s = 0.0f;
    for (int t = 0; t < chunks; ++t)
        for (int r = t * 32; r < t * 32 + 32 && r < rows; ++r) s += X[(size_t)r * cols + c];
    out[c] = s;
}
