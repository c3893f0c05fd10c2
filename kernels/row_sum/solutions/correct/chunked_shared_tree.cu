// Correct, another order: thread t of the block sums one contiguous chunk of the row, then a
// plain shared-memory tree (no shuffles) folds the 128 chunk sums, highest half onto lowest.
// launch: {"block": [128, 1, 1], "tile": [1, 1], "smem": 0}
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float part[128];
    const int row = blockIdx.y;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;
    const int chunk = (cols + 127) / 128;
    const int c0 = threadIdx.x * chunk, c1 = min(cols, c0 + chunk);
    float sum = 0.0f;
    for (int c = c0; c < c1; ++c) sum += p[c];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int h = 64; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = part[0];
}
