// WRONG on purpose: only block 0 works (the first 8 rows); the other rows stay unwritten.
// launch: {"block": [32, 8, 1], "tile": [1, 8], "smem": 0}
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    if (blockIdx.y != 0) return;
    const int row = threadIdx.y;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 32) sum += p[c];
    for (int mask = 16; mask > 0; mask /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
    if (threadIdx.x == 0) out[row] = sum;
}
