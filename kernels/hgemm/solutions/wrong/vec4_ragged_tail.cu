// WRONG on purpose (caught by the size classes mod4 and mod8 only): when N % 4 == 0 and K % 4 == 0
// it takes a "vectorised" path that handles whole 64-column tiles only and never writes the
// ragged last columns. Sizes with N % 4 != 0 take the scalar path and pass; whole tiles pass too.
// catches: mod4, mod8
// launch: {"block": [16, 16, 1], "tile": [64, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 16 + threadIdx.y;
    const int c0 = blockIdx.x * 64 + threadIdx.x * 4;           // 4 neighbouring columns per thread
    if (row >= M) return;
    const bool vec = (N % 4 == 0) && (K % 4 == 0);
    if (vec && (int)blockIdx.x * 64 + 64 > N) return;            // BUG: the partial last tile is skipped
    for (int j = 0; j < 4; ++j) {
        const int col = c0 + j;
        if (col >= N) break;
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
        C[(size_t)row * N + col] = acc;
    }
}
