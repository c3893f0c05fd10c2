// Correct: 32 x 32 shared tile without padding; instead column index x of row y is stored at
// x ^ y, so a warp reading a tile column still touches 32 different banks.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[32][32];
    const int x = threadIdx.x, y = threadIdx.y;
    const int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
    if (r0 + y < rows && c0 + x < cols) tile[y][x ^ y] = in[(size_t)(r0 + y) * cols + c0 + x];
    __syncthreads();
    if (c0 + y < cols && r0 + x < rows) out[(size_t)(c0 + y) * rows + r0 + x] = tile[x][y ^ x];
}
