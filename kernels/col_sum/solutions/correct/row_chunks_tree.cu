// Correct, another summation order: thread row y of the block sums one contiguous chunk of rows
// (not a stride), then the 8 chunk sums of each column are combined by a tree in shared memory.
// launch: {"block": [32, 8, 1], "tile": [32, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float part[8][32];
    const int x = threadIdx.x, y = threadIdx.y;
    const int col = blockIdx.x * 32 + x;
    const int chunk = (rows + 7) / 8;
    const int r0 = y * chunk;
    const int r1 = min(rows, r0 + chunk);

    float sum = 0.0f;
    if (col < cols)
        for (int r = r0; r < r1; ++r) sum += X[(size_t)r * cols + col];
    part[y][x] = sum;
    __syncthreads();
    for (int h = 4; h > 0; h /= 2) {
        if (y < h) part[y][x] += part[y + h][x];
        __syncthreads();
    }
    if (y == 0 && col < cols) out[col] = part[0][x];
}
