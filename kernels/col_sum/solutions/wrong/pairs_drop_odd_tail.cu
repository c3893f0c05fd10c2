// WRONG on purpose (caught by the size class prime, and by any odd width): each thread sums two
// neighbouring columns and writes the pair only when both exist, so for odd cols the last
// column is never written.
// catches: prime
// launch: {"block": [128, 1, 1], "tile": [256, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int c = blockIdx.x * 256 + threadIdx.x * 2;
    if (c + 1 >= cols) return;                                    // BUG: drops a lone last column
    float s0 = 0.0f, s1 = 0.0f;
    for (int r = 0; r < rows; ++r) {
        s0 += X[(size_t)r * cols + c];
        s1 += X[(size_t)r * cols + c + 1];
    }
    out[c] = s0;
    out[c + 1] = s1;
}
