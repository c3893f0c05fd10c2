// WRONG on purpose (caught by the size class prime, and by any odd N): each thread computes two
// neighbouring columns, and a pair is written only when both exist, so for odd N the last column
// of C is never written.
// catches: prime
// launch: {"block": [16, 16, 1], "tile": [32, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 32 + threadIdx.x * 2;
    if (row >= M || col + 1 >= N) return;                         // BUG: drops a lone last column
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k = 0; k < K; ++k) {
        const float a = __half2float(A[(size_t)row * K + k]);
        acc0 += a * __half2float(B[(size_t)k * N + col]);
        acc1 += a * __half2float(B[(size_t)k * N + col + 1]);
    }
    C[(size_t)row * N + col] = acc0;
    C[(size_t)row * N + col + 1] = acc1;
}
