// hgemm, naive: C (float32) = A (float16) * B (float16) on Tensor Cores through WMMA. Each warp
// computes one 16 x 16 tile of C; a block of 4 warps covers 32 x 32. For each step of 16 along K
// the warp copies its 16 x 16 pieces of A and B into shared memory (zeros outside the matrices,
// so any M, N, K works), loads them into fragments and does one 16 x 16 x 16 multiply-add. No
// reuse between warps: every warp reads its own A and B pieces from global memory.
// launch: {"block": [32, 4, 1], "tile": [32, 32], "smem": 0}
using namespace nvcuda;

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    __shared__ __align__(32) __half As[4][16 * 16];
    __shared__ __align__(32) __half Bs[4][16 * 16];
    __shared__ __align__(32) float Cs[4][16 * 16];
    const int lane = threadIdx.x, warp = threadIdx.y;
    const int row0 = blockIdx.y * 32 + (warp / 2) * 16;   // this warp's 16 x 16 tile of C
    const int col0 = blockIdx.x * 32 + (warp % 2) * 16;
    const __half zero = __float2half(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            const int r = i / 16, c = i % 16;
            As[warp][i] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : zero;
            Bs[warp][i] = (k0 + r < K && col0 + c < N) ? B[(size_t)(k0 + r) * N + col0 + c] : zero;
        }
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::load_matrix_sync(a, As[warp], 16);
        wmma::load_matrix_sync(b, Bs[warp], 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();   // the next step overwrites As/Bs
    }
    wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = lane; i < 256; i += 32) {
        const int r = row0 + i / 16, c = col0 + i % 16;
        if (r < M && c < N) C[(size_t)r * N + c] = Cs[warp][i];
    }
}
