// HOSTILE: a correct tiled kernel whose every thread also prints 16 lines per launch. Device
// printf under this much contention is slow (seen on an H200: a launch of 79k threads printing
// 4 lines each ran past the 4-5 s launch deadline), so the grader stops it: TIME_LIMIT. The
// printf buffer is small, the captured output is capped, and the next submission is unharmed.
// expect: TIME_LIMIT
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    for (int i = 0; i < 16; ++i)
        printf("flood %d block (%d,%d) thread (%d,%d) ..........................................\n",
               i, blockIdx.x, blockIdx.y, tx, ty);
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = (row < M && k0 + tx < K) ? __half2float(A[(size_t)row * K + k0 + tx]) : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? __half2float(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
