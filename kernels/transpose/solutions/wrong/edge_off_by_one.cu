// WRONG on purpose: the tiled kernel, but a block returns early unless its whole 32 x 32 tile
// lies inside the matrix, so the ragged edge tiles are never written. Sizes that are multiples
// of 32 pass; odd sizes (17, 33, 127, ...) fail.
// launch: {"block": [32, 8, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[32][33];
    const int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32, x = threadIdx.x;
    if (r0 + 32 > rows || c0 + 32 > cols) return;   // "no bounds checks needed inside"
    for (int y = threadIdx.y; y < 32; y += 8) tile[y][x] = in[(size_t)(r0 + y) * cols + c0 + x];
    __syncthreads();
    for (int y = threadIdx.y; y < 32; y += 8) out[(size_t)(c0 + y) * rows + r0 + x] = tile[x][y];
}
