// WRONG on purpose: each thread handles a PAIR of columns and skips a pair that is incomplete,
// so with an odd number of columns the last column is never written (even sizes pass).
// catches: prime
// launch: {"block": [256, 1, 1], "tile": [512, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (col + 1 >= cols) return;   // off by one: should be `col >= cols` plus a guard for col + 1
    float a = 0.0f, b = 0.0f;
    for (int r = 0; r < rows; ++r) {
        a += X[(size_t)r * cols + col];
        b += X[(size_t)r * cols + col + 1];
    }
    out[col] = a;
    out[col + 1] = b;
}
