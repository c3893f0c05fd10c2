// hgemm, tiled: a block of 4 warps computes a 64 x 64 tile of C, each warp a 32 x 32 part of it
// (2 x 2 WMMA fragments). The block walks along K in steps of 32, staging a 64 x 32 tile of A and
// a 32 x 64 tile of B in shared memory, so each value read from global memory feeds two warps'
// fragments and each fragment loaded from shared memory feeds two multiply-adds. Rows are padded
// by 8 halves (16 bytes) against bank conflicts; out-of-range elements are loaded as zeros.
// launch: {"block": [32, 4, 1], "tile": [64, 64], "smem": 0}
using namespace nvcuda;
#define BM 64
#define BN 64
#define BK 32
#define PAD 8

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[BM][BK + PAD];
    __shared__ __align__(32) __half Bs[BK][BN + PAD];
    __shared__ __align__(32) float Cs[4][16 * 16];
    const int tid = threadIdx.y * 32 + threadIdx.x, warp = threadIdx.y;
    const int wr = (warp / 2) * 32, wc = (warp % 2) * 32;    // this warp's 32 x 32 part of the tile
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const __half zero = __float2half(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    #pragma unroll
    for (int i = 0; i < 2; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * BK; i += 128) {
            const int r = i / BK, c = i % BK;
            As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : zero;
        }
        for (int i = tid; i < BK * BN; i += 128) {
            const int r = i / BN, c = i % BN;
            Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : zero;
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
            #pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &As[wr + 16 * i][kk], BK + PAD);
            #pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wc + 16 * j], BN + PAD);
            #pragma unroll
            for (int i = 0; i < 2; ++i)
                #pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    // through shared memory, so that the edges of C are written only where they exist
    #pragma unroll
    for (int i = 0; i < 2; ++i)
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
