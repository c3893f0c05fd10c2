// WRONG on purpose: writes zeros.
// launch: {"block": [256, 1, 1], "tile": [1, 256], "smem": 0}
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    const int row = blockIdx.y * blockDim.x + threadIdx.x;
    if (row < rows) out[row] = 0.0f;
}
