// HOSTILE: never returns. The clock64() test keeps the compiler from deleting the loop.
// expect: TIME_LIMIT
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    for (;;) {
        if (clock64() == -1) C[0] = 1.0f;
    }
}
