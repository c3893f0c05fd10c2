// WRONG on purpose (caught by the size class one): treats a matrix with one row or one column as
// "degenerate" and returns without writing out, which stays poisoned with NaN.
// catches: one
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    if (rows == 1 || cols == 1) return;                           // BUG: 1 is a valid size
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float s = 0.0f;
    for (int r = 0; r < rows; ++r) s += X[(size_t)r * cols + c];
    out[c] = s;
}
