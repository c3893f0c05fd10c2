// HOSTILE: a plain naive kernel, but the launch request asks for 64 x 32 = 2048 threads per
// block (the limit is 1024). The launch itself must be refused; nothing runs.
// expect: RUNTIME_ERROR
// launch: {"block": [64, 32, 1], "tile": [64, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
}
