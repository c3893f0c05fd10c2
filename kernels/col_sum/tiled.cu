// col_sum, tiled: one block covers 32 neighbouring columns with a 32 x 32 thread block.
// Thread (x, y) adds rows y, y + 32, ... of column 32*blockIdx.x + x. A warp (fixed y) reads 32
// consecutive floats of one row: one 128-byte transaction per load. The 32 partial sums of each
// column then meet in a shared-memory tile (padded to 33 to keep the column reads conflict-free).
// launch: {"block": [32, 32, 1], "tile": [32, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float tile[32][33];
    const int x = threadIdx.x, y = threadIdx.y;
    const int col = blockIdx.x * 32 + x;

    float sum = 0.0f;
    if (col < cols) {
        for (int r = y; r < rows; r += 32)
            sum += X[(size_t)r * cols + col];
    }
    tile[y][x] = sum;
    __syncthreads();

    // warp y now owns column y of the tile: 32 values, one per lane, summed with shuffles
    float v = tile[x][y];
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    const int out_col = blockIdx.x * 32 + y;
    if (x == 0 && out_col < cols) out[out_col] = v;
}
