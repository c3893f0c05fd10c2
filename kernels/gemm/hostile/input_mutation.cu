// HOSTILE: computes C correctly but flips the lowest mantissa bit of A[row][col] (col < K) on the
// way. Every result still lies within tolerance (a one-ulp change of an input), so only the
// grader's "inputs unchanged" check can catch it.
// expect: WRONG_ANSWER
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += A[(size_t)row * K + k] * B[(size_t)k * N + col];
    C[(size_t)row * N + col] = acc;
    if (col < K) atomicXor((unsigned int*)(A + (size_t)row * K + col), 1u);
}
