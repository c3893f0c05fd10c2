// 89_warp_128x128 — the first version of rung 09: 2×4 warps of 64×32 warp tiles, 8×8 per thread, BK 16 (41.1 TFLOP/s at 4096³ on H200).
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f32
// arch: sm_90
// EXPERIMENT: kept for comparison; it tied 08 (run 1 and run 2), so rung 09 now uses a 128×256 tile.
//
// Changed from 08: (1) a level of tiling between the block and the thread. Each warp owns a
// contiguous 64×32 piece of the block tile; inside it a lane owns a 4×4 sub-tile repeated 2×2
// times (rows 32 apart, columns 16 apart). The 32 lanes of a warp now touch only 64 rows and
// 32 columns of the tiles, so per k a warp's four float4 shared loads are 4 wavefronts (8 distinct
// A addresses, 4 distinct B addresses, broadcast to the rest) instead of 6 in 08, and the
// accumulators of one warp map onto a compact patch of C (better store locality).
// (2) BK grows from 8 to 16: half as many barriers and buffer switches per FLOP, 1024 FMAs per
// thread between barriers. Shared memory: 2 buffers × (16×132 + 16×128) floats = 33 KB.
// Why it should be faster: fewer LSU wavefronts and barriers per FMA; the FMA pipe is busier.
#define BM 128
#define BN 128
#define BK 16
#define NT 256
#define APAD 4
#define WM 64
#define WN 32

__device__ __forceinline__ float4 load4_guarded(const float* p, int row, int col, int rows, int cols, bool vec)
{
    if (vec && row < rows && col + 3 < cols)
        return *reinterpret_cast<const float4*>(p + row * cols + col);
    const bool r = row < rows;
    float4 v;
    v.x = (r && col     < cols) ? p[row * cols + col]     : 0.0f;
    v.y = (r && col + 1 < cols) ? p[row * cols + col + 1] : 0.0f;
    v.z = (r && col + 2 < cols) ? p[row * cols + col + 2] : 0.0f;
    v.w = (r && col + 3 < cols) ? p[row * cols + col + 3] : 0.0f;
    return v;
}

extern "C" __global__ void __launch_bounds__(NT, 2)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ __align__(16) float As[2][BK][BM + APAD];
    __shared__ __align__(16) float Bs[2][BK][BN];

    const int t = threadIdx.x;
    const int warp = t >> 5, lane = t & 31;
    const int wRow = (warp >> 2) * WM;          // 2 warps down
    const int wCol = (warp & 3) * WN;           // 4 warps across
    const int lr = (lane >> 2) * 4;             // 8 lanes down  × 4 rows
    const int lc = (lane & 3) * 4;              // 4 lanes across × 4 columns
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;

    // Copy maps: A tile 128×16 = 512 float4 (2 per thread), B tile 16×128 = 512 float4.
    int aRow[2], aK[2], bRow[2], bCol[2];
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        const int idx = t + p * NT;
        aRow[p] = idx >> 2;  aK[p] = (idx & 3) * 4;
        bRow[p] = idx >> 5;  bCol[p] = (idx & 31) * 4;
    }

    float acc[8][8];   // [wm*4+i][wn*4+j]
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    float4 pa[2], pb[2];
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        pa[p] = load4_guarded(A, rowBase + aRow[p], aK[p], M, K, aVec);
        pb[p] = load4_guarded(B, bRow[p], colBase + bCol[p], K, N, bVec);
        As[0][aK[p] + 0][aRow[p]] = pa[p].x; As[0][aK[p] + 1][aRow[p]] = pa[p].y;
        As[0][aK[p] + 2][aRow[p]] = pa[p].z; As[0][aK[p] + 3][aRow[p]] = pa[p].w;
        *reinterpret_cast<float4*>(&Bs[0][bRow[p]][bCol[p]]) = pb[p];
    }
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) {
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                pa[p] = load4_guarded(A, rowBase + aRow[p], k0 + BK + aK[p], M, K, aVec);
                pb[p] = load4_guarded(B, k0 + BK + bRow[p], colBase + bCol[p], K, N, bVec);
            }
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][wRow + lr]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][wRow + 32 + lr]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + lc]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + 16 + lc]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
        }

        if (more) {
            const int nb = buf ^ 1;
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                As[nb][aK[p] + 0][aRow[p]] = pa[p].x; As[nb][aK[p] + 1][aRow[p]] = pa[p].y;
                As[nb][aK[p] + 2][aRow[p]] = pa[p].z; As[nb][aK[p] + 3][aRow[p]] = pa[p].w;
                *reinterpret_cast<float4*>(&Bs[nb][bRow[p]][bCol[p]]) = pb[p];
            }
        }
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gr = rowBase + wRow + (i >> 2) * 32 + lr + (i & 3);
        if (gr >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gc = colBase + wCol + h * 16 + lc;
            if (bVec && gc + 3 < N) {
                *reinterpret_cast<float4*>(C + gr * N + gc) =
                    make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (gc + j < N) C[gr * N + gc + j] = acc[i][h * 4 + j];
            }
        }
    }
}
