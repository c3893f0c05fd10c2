// WRONG on purpose (caught by the size class tall_skinny): the K loop stops at 512, as if a row
// of A always fit a 512-float buffer; only long, skinny products (K = 999, 1000) expose it.
// catches: tall_skinny
// launch: {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= M || col >= N) return;
    const int kmax = K < 512 ? K : 512;                           // BUG: K may be larger
    float acc = 0.0f;
    for (int k = 0; k < kmax; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
