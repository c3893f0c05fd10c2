// WRONG on purpose: leaves out the last 1% of the rows (rows / 100 of them).
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    const int used = rows - rows / 100;
    float sum = 0.0f;
    for (int r = 0; r < used; ++r) sum += X[(size_t)r * cols + col];
    out[col] = sum;
}
