// Correct and fast: each thread owns 4 neighbouring columns and reads them as one 16-byte float4
// when every row starts 16-byte aligned (cols % 4 == 0); otherwise it falls back to 4 scalar
// loads. 64 thread rows per block keep many loads in flight; a shared tree combines them.
// launch: {"block": [16, 64, 1], "tile": [64, 1], "smem": 0}
extern "C" __global__ void __launch_bounds__(1024) col_sum(const float* X, float* out, int rows, int cols)
{
    __shared__ float4 part[64][16];
    const int x = threadIdx.x, y = threadIdx.y;
    const int col0 = blockIdx.x * 64 + 4 * x;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);

    if ((cols & 3) == 0) {
        if (col0 < cols) {
            #pragma unroll 4
            for (int r = y; r < rows; r += 64) {
                const float4 v = *reinterpret_cast<const float4*>(X + (size_t)r * cols + col0);
                acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
            }
        }
    } else {
        for (int r = y; r < rows; r += 64) {
            const float* row = X + (size_t)r * cols;
            if (col0 + 0 < cols) acc.x += row[col0 + 0];
            if (col0 + 1 < cols) acc.y += row[col0 + 1];
            if (col0 + 2 < cols) acc.z += row[col0 + 2];
            if (col0 + 3 < cols) acc.w += row[col0 + 3];
        }
    }
    part[y][x] = acc;
    __syncthreads();
    for (int h = 32; h > 0; h /= 2) {
        if (y < h) {
            float4 a = part[y][x];
            const float4 b = part[y + h][x];
            a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
            part[y][x] = a;
        }
        __syncthreads();
    }
    if (y == 0) {
        const float4 s = part[0][x];
        if (col0 + 0 < cols) out[col0 + 0] = s.x;
        if (col0 + 1 < cols) out[col0 + 1] = s.y;
        if (col0 + 2 < cols) out[col0 + 2] = s.z;
        if (col0 + 3 < cols) out[col0 + 3] = s.w;
    }
}
