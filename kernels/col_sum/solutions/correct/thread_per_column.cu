// Correct: one thread per column, adding the rows strictly in order 0, 1, 2, ...
// Neighbouring threads read neighbouring columns of the same row, so loads are coalesced.
// launch: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r)
        sum += X[(size_t)r * cols + col];
    out[col] = sum;
}
