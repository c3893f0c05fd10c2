// Correct: one thread per element of C, adding the products from k = K-1 down to 0 and with
// two accumulators (even and odd k): a different summation order from the references.
// launch: {"block": [16, 16, 1], "tile": [16, 16], "smem": 0}
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float even = 0.0f, odd = 0.0f;
    for (int k = K - 1; k >= 0; --k) {
        const float p = A[(size_t)row * K + k] * B[(size_t)k * N + col];
        if (k & 1) odd += p; else even += p;
    }
    C[(size_t)row * N + col] = even + odd;
}
