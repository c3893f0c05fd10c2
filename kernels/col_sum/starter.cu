// col_sum starter: out[j] = X[0][j] + X[1][j] + ... + X[rows-1][j], X row-major (rows x cols).
// This skeleton compiles and runs but is NOT correct yet: fill in the TODO.
// One thread per column (lesson 1): thread `col` walks down its column. At every step the 32
// lanes of a warp read 32 neighbouring floats of one row, so every load is coalesced.
// Launch request to start with: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
// (tile [256, 1] = each block finishes 256 columns; grid = (ceil(cols / 256), 1, 1)).
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;

    float sum = 0.0f;
    // TODO: add X[r][col] for every row r = 0 .. rows-1 (row-major: X[(size_t)r * cols + col]).
    //       Later, for the speed tiers: split the rows over threadIdx.y and combine the partial
    //       sums in shared memory (lesson 2).

    out[col] = sum;
}
