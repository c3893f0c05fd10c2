// HOSTILE: one thread per block asks the device heap for 4 MiB (which the default 8 MiB heap
// would grant) and keeps asking; it writes through the pointer without checking it. The grader
// sets the heap small, malloc returns NULL and the write faults.
// expect: RUNTIME_ERROR
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    if (threadIdx.x != 0 || threadIdx.y != 0) return;
    for (int i = 0; i < 64; ++i) {
        float* p = (float*)malloc((size_t)4 << 20);
        p[i] = 1.0f;   // NULL when the heap is exhausted
    }
}
