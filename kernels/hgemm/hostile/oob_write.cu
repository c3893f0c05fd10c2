// HOSTILE: writes far outside C (about 64 GiB past its start).
// expect: RUNTIME_ERROR
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    C[((size_t)1 << 34) + threadIdx.x] = 1.0f;
}
