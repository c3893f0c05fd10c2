// WRONG on purpose (caught by the size class mod_tile): the K loop runs 64-wide tiles while
// k0 + 64 < K and then a scalar tail from (K / 64) * 64. When K is a multiple of 64 the last whole
// tile falls between the two loops and is never added; every other K is summed completely.
// catches: mod_tile
// launch: {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    int k0 = 0;
    for (; k0 + 64 < K; k0 += 64)                                 // BUG: should be k0 + 64 <= K
        for (int k = k0; k < k0 + 64; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    for (int k = (K / 64) * 64; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
