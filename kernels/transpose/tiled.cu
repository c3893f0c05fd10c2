// transpose, tiled: a block moves one 32 x 32 tile through shared memory. It reads the tile
// row by row (coalesced), then writes it out column by column of the tile, which are rows of
// the output (coalesced again). Rows of the shared tile are padded to 33 floats so that reading
// a tile column hits 32 different banks. 32 x 8 threads, 4 elements each.
// launch: {"block": [32, 8, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    __shared__ float tile[32][33];
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
