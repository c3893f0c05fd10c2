// WRONG on purpose (caught by the size class one): treats a matrix with a dimension of 1 as
// "degenerate" and returns without writing C, which stays poisoned with NaN.
// catches: one
// launch: {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    if (M == 1 || N == 1 || K == 1) return;                       // BUG: 1 is a valid size
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
