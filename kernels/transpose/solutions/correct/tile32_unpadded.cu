// Correct but slow on purpose: the tiled reference WITHOUT the padding column. The shared tile is
// 32 x 32 floats, so tile[x][y] for the 32 lanes of a warp (x = 0..31) lies 32 floats apart: every
// lane hits the same bank and each read of the write-out loop becomes a 32-way bank conflict.
// Lesson 3 measures it against the padded tile and the naive kernel.
// launch: {"block": [32, 8, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[32][32];
    const int r0 = blockIdx.x * 32;   // first input row of the tile
    const int c0 = blockIdx.y * 32;   // first input column of the tile
    const int x = threadIdx.x;

    for (int y = threadIdx.y; y < 32; y += 8) {
        const int r = r0 + y, c = c0 + x;
        if (r < rows && c < cols) tile[y][x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int c = c0 + y, r = r0 + x;      // output row c, output column r
        if (c < cols && r < rows) out[(size_t)c * rows + r] = tile[x][y];
    }
}
