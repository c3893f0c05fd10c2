// WRONG on purpose (caught by the size classes mod4 and mod8 only): when cols % 4 == 0 it takes a
// "vectorised" float4 path that handles whole 64-column blocks only and never writes the ragged
// last columns. Other widths take the scalar path and pass; whole blocks pass too.
// catches: mod4, mod8
// launch: {"block": [16, 1, 1], "tile": [64, 1], "smem": 0}
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int c0 = blockIdx.x * 64 + threadIdx.x * 4;
    if (cols % 4 == 0) {
        if ((int)blockIdx.x * 64 + 64 > cols) return;              // BUG: the partial last block is skipped
        float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
        for (int r = 0; r < rows; ++r) {
            const float4 v = *reinterpret_cast<const float4*>(X + (size_t)r * cols + c0);
            s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
        }
        out[c0] = s.x; out[c0 + 1] = s.y; out[c0 + 2] = s.z; out[c0 + 3] = s.w;
        return;
    }
    for (int j = 0; j < 4; ++j) {
        const int c = c0 + j;
        if (c >= cols) return;
        float s = 0.0f;
        for (int r = 0; r < rows; ++r) s += X[(size_t)r * cols + c];
        out[c] = s;
    }
}
