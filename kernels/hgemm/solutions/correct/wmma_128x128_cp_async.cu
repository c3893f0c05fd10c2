// hgemm, correct and fast (the tiers' proof): a block of 8 warps computes a 128 x 128 tile of C,
// each warp a 64 x 32 part (4 x 2 WMMA fragments, 8 accumulators). Tiles of A (128 x 32) and B
// (32 x 128) are copied into shared memory with cp.async, 16 bytes (8 halves) per copy, two stages
// deep: the copy of the next K step runs while the Tensor Cores work on the current one. A copy
// that would read past the matrix asks for 0 source bytes, so cp.async fills the 16 bytes with
// zeros. 16-byte copies need rows that start on 16 bytes (K and N multiples of 8); other sizes take
// a plain element-by-element path into the same buffers.
// launch: {"block": [32, 8, 1], "tile": [128, 128], "smem": 0}
using namespace nvcuda;
#define BM 128
#define BN 128
#define BK 32
#define APAD 8
#define BPAD 8

__device__ __forceinline__ void copy16(void* dst, const void* src, bool inside)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    const int bytes = inside ? 16 : 0;   // 0 source bytes: the 16 bytes become zeros
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(s), "l"(src), "r"(bytes));
}

__device__ __forceinline__ void load_stage(__half (*As)[BK + APAD], __half (*Bs)[BN + BPAD],
                                           const __half* A, const __half* B, int M, int N, int K,
                                           int row0, int col0, int k0, int tid, bool vec)
{
    const __half zero = __float2half(0.0f);
    if (vec) {
        for (int i = tid; i < BM * BK / 8; i += 256) {          // 2 copies of A per thread
            const int r = i / (BK / 8), c = (i % (BK / 8)) * 8;
            const bool in = row0 + r < M && k0 + c < K;
            copy16(&As[r][c], in ? A + (size_t)(row0 + r) * K + k0 + c : A, in);
        }
        for (int i = tid; i < BK * BN / 8; i += 256) {          // 2 copies of B per thread
            const int r = i / (BN / 8), c = (i % (BN / 8)) * 8;
            const bool in = k0 + r < K && col0 + c < N;
            copy16(&Bs[r][c], in ? B + (size_t)(k0 + r) * N + col0 + c : B, in);
        }
    } else {
        for (int i = tid; i < BM * BK; i += 256) {
            const int r = i / BK, c = i % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : zero;
        }
        for (int i = tid; i < BK * BN; i += 256) {
            const int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : zero;
        }
    }
    asm volatile("cp.async.commit_group;");
}

extern "C" __global__ void __launch_bounds__(256)
hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    __shared__ __align__(128) __half As[2][BM][BK + APAD];
    __shared__ __align__(128) __half Bs[2][BK][BN + BPAD];
    __shared__ __align__(32) float Cs[8][16 * 16];
    const int tid = threadIdx.y * 32 + threadIdx.x, warp = threadIdx.y;
    const int wr = (warp / 4) * 64, wc = (warp % 4) * 32;   // this warp's 64 x 32 part of the tile
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const bool vec = (K % 8 == 0) && (N % 8 == 0);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int steps = (K + BK - 1) / BK;
    load_stage(As[0], Bs[0], A, B, M, N, K, row0, col0, 0, tid, vec);
    for (int t = 0; t < steps; ++t) {
        const int cur = t & 1;
        if (t + 1 < steps)
            load_stage(As[cur ^ 1], Bs[cur ^ 1], A, B, M, N, K, row0, col0, (t + 1) * BK, tid, vec);
        else
            asm volatile("cp.async.commit_group;");          // an empty group keeps the count even
        asm volatile("cp.async.wait_group 1;");              // step t's copies have landed
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
            #pragma unroll
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[cur][wr + 16 * i][kk], BK + APAD);
            #pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[cur][kk][wc + 16 * j], BN + BPAD);
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();   // everyone is done with stage cur before step t + 2 copies into it
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(Cs[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = threadIdx.x; e < 256; e += 32) {
                const int r = row0 + wr + 16 * i + e / 16, c = col0 + wc + 16 * j + e % 16;
                if (r < M && c < N) C[(size_t)r * N + c] = Cs[warp][e];
            }
            __syncwarp();
        }
}
