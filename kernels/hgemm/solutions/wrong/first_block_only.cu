// WRONG on purpose: only block (0, 0) computes its 32 x 32 tile; the rest of C stays unwritten.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    if (blockIdx.x != 0 || blockIdx.y != 0) return;
    const int row = threadIdx.y, col = threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
