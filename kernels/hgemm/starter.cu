// hgemm starter: C (M x N, float32) = A (M x K, float16) * B (K x N, float16), row-major.
// This skeleton compiles and runs but is NOT correct yet: fill in the TODOs.
// Launch request to start with: {"block": [32, 4, 1], "tile": [32, 32], "smem": 0}
// (4 warps, each computing one 16 x 16 tile of C; grid = (ceil(N / 32), ceil(M / 32), 1)).
//
// hgemm 시작 코드: C (M x N, float32) = A (M x K, float16) * B (K x N, float16), 모두 행 우선이에요.
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채워 보세요.
// 처음 쓸 launch 요청: {"block": [32, 4, 1], "tile": [32, 32], "smem": 0}
// (warp 4개가 C의 16 x 16 타일을 하나씩 계산해요. grid = (ceil(N / 32), ceil(M / 32), 1))
using namespace nvcuda;

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    // One 16 x 16 piece of A, of B and of C per warp, staged in shared memory.
    // load_matrix_sync needs 32-byte aligned addresses, hence __align__(32).
    // warp마다 A, B, C의 16 x 16 조각을 shared memory에 둬요.
    // load_matrix_sync는 32바이트로 정렬된 주소가 필요해서 __align__(32)를 붙였어요.
    __shared__ __align__(32) __half As[4][16 * 16];
    __shared__ __align__(32) __half Bs[4][16 * 16];
    __shared__ __align__(32) float Cs[4][16 * 16];
    const int lane = threadIdx.x, warp = threadIdx.y;
    const int row0 = blockIdx.y * 32 + (warp / 2) * 16;   // this warp's tile of C / 이 warp가 맡은 C 타일
    const int col0 = blockIdx.x * 32 + (warp % 2) * 16;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;   // float32 accumulator / float32 누산기
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        // TODO: copy A[row0 .. row0+15][k0 .. k0+15] into As[warp] and B[k0 .. k0+15][col0 .. col0+15]
        //       into Bs[warp] (row-major, 16 per row), writing zeros outside the matrices.
        // TODO: A[row0 .. row0+15][k0 .. k0+15]를 As[warp]에, B[k0 .. k0+15][col0 .. col0+15]를
        //       Bs[warp]에 복사해요(행 우선, 한 행에 16개). 행렬 밖은 0으로 채워요.
        __syncwarp();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        // TODO: load_matrix_sync a from As[warp] and b from Bs[warp] (leading dimension 16),
        //       then mma_sync(acc, a, b, acc).
        // TODO: As[warp]에서 a를, Bs[warp]에서 b를 load_matrix_sync로 읽고(leading dimension 16)
        //       mma_sync(acc, a, b, acc)를 불러요.
        (void)a; (void)b; (void)A; (void)B; (void)As; (void)Bs;
        __syncwarp();
    }
    wmma::store_matrix_sync(Cs[warp], acc, 16, wmma::mem_row_major);
    __syncwarp();
    // Write the tile back, only where it lies inside C. / 타일을 C 안에 있는 자리에만 써요.
    for (int i = lane; i < 256; i += 32) {
        const int r = row0 + i / 16, c = col0 + i % 16;
        if (r < M && c < N) C[(size_t)r * N + c] = Cs[warp][i];
    }
}
