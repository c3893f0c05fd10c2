// HOSTILE: honest for its first 12 launches (correctness runs and warm-up), then returns at once
// without writing C -- a kernel that only behaves while it thinks it is being checked.
// expect: WRONG_ANSWER
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
__device__ unsigned int g_launches;

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const unsigned int seen = *(volatile unsigned int*)&g_launches;
    __syncthreads();
    if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0)
        atomicAdd(&g_launches, 1u);
    if (seen >= 12) return;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
}
