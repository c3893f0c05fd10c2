// HOSTILE: executes a trap instruction.
// expect: RUNTIME_ERROR
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    if (threadIdx.x == 0) __trap();
}
