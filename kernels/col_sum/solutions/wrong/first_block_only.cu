// WRONG on purpose: only block 0 does its work (the first 32 columns); the rest stay unwritten.
// launch: {"block": [32, 32, 1], "tile": [32, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    if (blockIdx.x != 0) return;
    const int col = threadIdx.x;
    if (threadIdx.y != 0 || col >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) sum += X[(size_t)r * cols + col];
    out[col] = sum;
}
