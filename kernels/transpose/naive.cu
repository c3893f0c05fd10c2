// transpose, naive: each thread moves one element straight from in[r][c] to out[c][r].
// threadIdx.x runs along an output row, so the writes of a warp are coalesced, but its reads
// are `cols` floats apart: one memory transaction per thread.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    const int r = blockIdx.x * 32 + threadIdx.x;   // input row    = output column
    const int c = blockIdx.y * 32 + threadIdx.y;   // input column = output row
    if (r < rows && c < cols)
        out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
