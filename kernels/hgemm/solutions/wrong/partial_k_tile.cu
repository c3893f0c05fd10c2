// WRONG on purpose: the tiled kernel that only loops over FULL 32-wide K tiles (K / 32 of them),
// dropping the ragged last one. K = 1024 passes; odd K (17, 33, 65, 127, ...) fails.
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int t = 0; t < K / 32; ++t) {
        const int k0 = t * 32;
        As[ty][tx] = row < M ? __half2float(A[(size_t)row * K + k0 + tx]) : 0.0f;
        Bs[ty][tx] = col < N ? __half2float(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
