// HOSTILE: computes C correctly but flips the lowest mantissa bit of one float16 value of A on the
// way (thread i flips the low bit of the 32-bit word i of A, which holds A's values 2i and 2i+1).
// The results still lie within tolerance at most sizes, so only the grader's "inputs unchanged"
// check can be relied on to catch it.
// expect: WRONG_ANSWER
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
    C[(size_t)row * N + col] = acc;
    const size_t word = (size_t)row * N + col;
    if (word < (size_t)M * K / 2) atomicXor((unsigned int*)A + word, 1u);
}
