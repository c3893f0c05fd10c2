// hgemm starter: C (M x N, float32) = A (M x K, float16) * B (K x N, float16), row-major.
// This skeleton compiles and runs but is NOT correct yet: fill in the TODOs.
// Launch request to start with: {"block": [32, 4, 1], "tile": [32, 32], "smem": 0}
// (4 warps, each computing one 16 x 16 tile of C; grid = (ceil(N / 32), ceil(M / 32), 1)).
using namespace nvcuda;

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    // One 16 x 16 piece of A, of B and of C per warp, staged in shared memory.
    // load_matrix_sync needs 32-byte aligned addresses, hence __align__(32).
    __shared__ __align__(32) __half As[4][16 * 16];
    __shared__ __align__(32) __half Bs[4][16 * 16];
    __shared__ __align__(32) float Cs[4][16 * 16];
    const int lane = threadIdx.x, warp = threadIdx.y;
    const int row0 = blockIdx.y * 32 + (warp / 2) * 16;   // this warp's tile of C
    const int col0 = blockIdx.x * 32 + (warp % 2) * 16;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;   // float32 accumulator
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        // TODO: copy A[row0 .. row0+15][k0 .. k0+15] into As[warp] and B[k0 .. k0+15][col0 .. col0+15]
        //       into Bs[warp] (row-major, 16 per row), writing zeros outside the matrices.
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        // TODO: load_matrix_sync a from As[warp] and b from Bs[warp] (leading dimension 16),
        //       then mma_sync(acc, a, b, acc).
        (void)a; (void)b; (void)A; (void)B; (void)As; (void)Bs;
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    // Write the tile back, only where it lies inside C.
    for (int i = lane; i < 256; i += 32) {
        const int r = row0 + i / 16, c = col0 + i % 16;
        if (r < M && c < N) C[(size_t)r * N + c] = Cs[warp][i];
    }
}
