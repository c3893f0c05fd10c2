// col_sum, naive: one block per column. The block's threads walk down that column, so thread t
// reads rows t, t + blockDim.x, ...; neighbouring threads touch addresses `cols` floats apart,
// and every load instruction of a warp needs 32 separate memory transactions.
// launch: {"block": [256, 1, 1], "tile": [1, 1], "smem": 0}   (blockDim.x: a power of two <= 256)
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float partial[256];
    const int col = blockIdx.x;          // uniform across the block
    if (col >= cols) return;

    float sum = 0.0f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x)
        sum += X[(size_t)r * cols + col];
    partial[threadIdx.x] = sum;
    __syncthreads();

    // tree reduction of the block's partial sums in shared memory
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[col] = partial[0];
}
