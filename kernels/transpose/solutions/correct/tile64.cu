// Correct and fast: 64 x 64 tiles (padded), 32 x 16 threads, 8 elements per thread: fewer
// blocks, more independent loads in flight per thread.
// launch: {"block": [32, 16, 1], "tile": [64, 64], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[64][65];
    const int r0 = blockIdx.x * 64, c0 = blockIdx.y * 64;
    const int x = threadIdx.x;
    #pragma unroll
    for (int y = threadIdx.y; y < 64; y += 16) {
        #pragma unroll
        for (int h = 0; h < 64; h += 32) {
            const int r = r0 + y, c = c0 + x + h;
            if (r < rows && c < cols) tile[y][x + h] = in[(size_t)r * cols + c];
        }
    }
    __syncthreads();
    #pragma unroll
    for (int y = threadIdx.y; y < 64; y += 16) {
        #pragma unroll
        for (int h = 0; h < 64; h += 32) {
            const int c = c0 + y, r = r0 + x + h;
            if (c < cols && r < rows) out[(size_t)c * rows + r] = tile[x + h][y];
        }
    }
}
