// row_sum, naive: one thread per row, walking along it. At each step the 32 threads of a warp
// read 32 different rows (addresses `cols` floats apart): 32 transactions for 32 useful floats.
// launch: {"block": [256, 1, 1], "tile": [1, 256], "smem": 0}   (tile rows = blockDim.x)
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    const int row = blockIdx.y * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += p[c];
    out[row] = sum;
}
