// HOSTILE: computes honestly the first time it sees an output buffer of a given size, keeps the
// answer in a __device__ array, and afterwards replays it without reading A or B. Correctness
// runs (fresh buffers, fresh sizes) pass; timed runs with refreshed inputs must catch it.
// expect: WRONG_ANSWER
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
#define CACHE_FLOATS (2048 * 2048)
__device__ float g_cache[CACHE_FLOATS];
__device__ unsigned long long g_key;
__device__ int g_valid;
__device__ unsigned int g_blocks_done;

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const unsigned long long key = (unsigned long long)(size_t)C
        ^ ((unsigned long long)M << 44) ^ ((unsigned long long)N << 24) ^ (unsigned long long)K;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const bool fits = (size_t)M * N <= CACHE_FLOATS;
    const bool replay = fits && *(volatile int*)&g_valid && *(volatile unsigned long long*)&g_key == key;

    if (row < M && col < N) {
        const size_t i = (size_t)row * N + col;
        if (replay) {
            C[i] = g_cache[i];
        } else {
            float acc = 0.0f;
            for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
            C[i] = acc;
            if (fits) g_cache[i] = acc;
        }
    }
    if (replay || !fits) return;
    // the last block to finish publishes the cache for the next launch
    __syncthreads();
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence();
        const unsigned int total = gridDim.x * gridDim.y;
        if (atomicAdd(&g_blocks_done, 1u) == total - 1) {
            g_blocks_done = 0;
            g_key = key;
            __threadfence();
            g_valid = 1;
        }
    }
}
