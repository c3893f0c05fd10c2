// 03_smem_tiling — stage 32×32 tiles of A and B in shared memory and reuse each loaded value 32 times.
// launch: block=32,32,1 tile=32,32 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 02: the block first copies a 32×32 tile of A and a 32×32 tile of B into shared
// memory (one coalesced load per thread per tile), waits at a barrier, then every thread runs
// its 32 multiply-adds out of shared memory. Why it should be faster: each value fetched from
// global memory now serves 32 threads, so global traffic falls by 32× (K/32 tile loads instead
// of K element loads per thread). The cost: two __syncthreads per tile, and every FMA still reads
// shared memory (the compiler merges four broadcast A reads into one 16-byte load: 1.25 shared
// loads per FMA in the SASS), so the shared-memory data path becomes the limit.
// Out-of-range elements are stored as zero, so partial tiles at the edges add nothing.
#define TS 32

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TS + ty;
    const int col = blockIdx.x * TS + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        const int ak = k0 + tx;          // column of A this thread copies
        const int bk = k0 + ty;          // row of B this thread copies
        As[ty][tx] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
        Bs[ty][tx] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
        __syncthreads();

#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc += As[ty][k] * Bs[k][tx];   // As: broadcast within the warp; Bs: 32 banks, no conflict
        __syncthreads();                    // nobody overwrites a tile another warp still reads
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
