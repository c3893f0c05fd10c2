// WRONG on purpose: skips the last 1% of the input rows (those output columns stay unwritten).
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    const int r = blockIdx.x * 32 + threadIdx.x;
    const int c = blockIdx.y * 32 + threadIdx.y;
    if (r < rows - rows / 100 && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
