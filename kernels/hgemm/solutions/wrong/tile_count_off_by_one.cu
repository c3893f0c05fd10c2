// WRONG on purpose (caught by the size classes tile_plus_one and one): the number of 32-wide K
// tiles is computed as (K + 30) / 32 instead of (K + 31) / 32, so when K is one past a multiple of
// 32 (K = 1, 33, 65, 129, ...) the last tile, holding a single k, is never added.
// catches: tile_plus_one, one
// launch: {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    const int tiles = (K + 30) / 32;                              // BUG: ceil(K / 32) is (K + 31) / 32
    for (int t = 0; t < tiles; ++t)
        for (int k = t * 32; k < t * 32 + 32 && k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
