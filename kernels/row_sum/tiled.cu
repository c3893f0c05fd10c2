// row_sum, tiled: one block per row. Thread t reads elements t, t + 256, ... so each warp load
// is 32 consecutive floats (coalesced). Each warp folds its 32 sums with shuffles, the warps'
// results meet in shared memory, and warp 0 folds those.
// launch: {"block": [256, 1, 1], "tile": [1, 1], "smem": 0}   (blockDim.x: a multiple of 32)
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float warp_sums[32];
    const int row = blockIdx.y;
    if (row >= rows) return;                       // uniform across the block
    const float* p = X + (size_t)row * cols;

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += p[c];

    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();

    if (warp == 0) {
        const int nwarps = blockDim.x / 32;
        float v = lane < nwarps ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        if (lane == 0) out[row] = v;
    }
}
