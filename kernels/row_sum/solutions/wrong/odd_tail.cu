// WRONG on purpose: reads the row as pairs and drops an unpaired last element, so any odd
// number of columns loses X[i][cols-1] (even sizes pass).
// launch: {"block": [32, 8, 1], "tile": [1, 8], "smem": 0}
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    const int row = blockIdx.y * 8 + threadIdx.y;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = 2 * threadIdx.x; c + 1 < cols; c += 64) sum += p[c] + p[c + 1];
    for (int mask = 16; mask > 0; mask /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, mask);
    if (threadIdx.x == 0) out[row] = sum;
}
