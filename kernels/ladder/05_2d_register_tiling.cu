// 05_2d_register_tiling — each thread computes an 8×8 block of C from 8+8 registers; 128×128 block tile.
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 04: the per-thread tile becomes two-dimensional (TM×TN = 8×8). For each k the
// thread loads 8 values of A and 8 values of B into registers and does their outer product:
// 64 FMAs for 16 shared-memory loads (0.25 values per FMA, down from 9/8). The block tile grows
// to 128×128 (256 threads × 64 outputs), which halves global traffic per FLOP again.
// Why it should be faster: the kernel was limited by shared-memory load instructions; now FMA
// issue can dominate. Cost: 64 accumulators + 16 operands ≈ 100+ registers per thread.
// Loads are still scalar in the source (one float per load). In the SASS only the global loads
// stay that way: the compiler already merges the shared loads into LDS.128. Rung 06 vectorises
// the global loads.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256

extern "C" __global__ void __launch_bounds__(NT)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];

    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;           // 16×16 threads, each 8×8 outputs
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    float ra[TM], rb[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        // 1024 elements per tile, 4 per thread; consecutive threads take consecutive elements.
#pragma unroll
        for (int p = 0; p < (BM * BK) / NT; ++p) {
            const int idx = t + p * NT;
            const int r = idx / BK, c = idx % BK;
            const int gr = rowBase + r, gc = k0 + c;
            As[r][c] = (gr < M && gc < K) ? A[gr * K + gc] : 0.0f;
        }
#pragma unroll
        for (int p = 0; p < (BK * BN) / NT; ++p) {
            const int idx = t + p * NT;
            const int r = idx / BN, c = idx % BN;
            const int gr = k0 + r, gc = colBase + c;
            Bs[r][c] = (gr < K && gc < N) ? B[gr * N + gc] : 0.0f;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) ra[i] = As[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) rb[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int gr = rowBase + ty * TM + i;
        if (gr >= M) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int gc = colBase + tx * TN + j;
            if (gc < N) C[gr * N + gc] = acc[i][j];
        }
    }
}
