// 81_f32_raster_regdb — experiment: rung 09 + grouped block order + register double-buffered fragments (8 block-rows at a time); a larger thread tile, 8×16 outputs per thread (128×256 block, 2×4 warp tiles of 64×64).
// launch: block=256,1,1 tile=256,128 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 08: (1) warp tiling. Each of the 8 warps owns a contiguous 64×64 piece of the
// block tile; inside it a lane owns a 4×4 sub-tile repeated 2×4 times (rows 32 apart, columns 16
// apart). For one k a warp's shared loads then touch only 64 rows of A and 64 columns of B:
// 8 distinct float4 of A and 4 distinct float4 of B per load instruction, one wavefront each.
// (2) The per-thread tile doubles to 8×16 (128 accumulators) and the block tile to 128×256: per k
// a thread issues 6 float4 shared loads for 128 FMAs (08: 4 for 64), and each byte copied from
// global memory feeds 1.5× more math. The copies stay as in 08: one float4 of A and two of B per
// thread, staged in registers, written to the other of two shared buffers after the math.
// Why it should be faster: fewer shared-memory instructions and wavefronts per FMA, fewer global
// bytes per FLOP. Cost: 225 registers, so only one 256-thread block (8 warps) fits per SM; the
// 64 independent FMAs per loaded value must hide latency instead of other warps.
// History: a first version (kept as experiments/89_warp_128x128.cu: 64×32 warp tiles, 8×8 per
// thread, BK 16, two blocks per SM) measured the same as 08 (41.1 vs 41.3 TFLOP/s at 4096³, H200).
#define BM 128
#define BN 256
#define BK 8
#define NT 256
#define APAD 4
#define WM 64
#define WN 64

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

extern "C" __global__ void __launch_bounds__(NT, 1)
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
    // Grouped block order (as rung 12): blocks running together share A and B panels in L2.
    const int gridN = gridDim.x, gridM = gridDim.y;
    const int bid = blockIdx.y * gridN + blockIdx.x;
    const int perGroup = 8 * gridN;
    const int firstM = (bid / perGroup) * 8;
    const int groupRows = min(gridM - firstM, 8);
    const int rowBase = (firstM + (bid % perGroup) % groupRows) * BM;
    const int colBase = ((bid % perGroup) / groupRows) * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;

    // A tile 128×8 = 256 float4 (1 per thread); B tile 8×256 = 512 float4 (2 per thread).
    const int aRow = t >> 1, aK = (t & 1) * 4;
    int bRow[2], bCol[2];
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        const int idx = t + p * NT;
        bRow[p] = idx >> 6;  bCol[p] = (idx & 63) * 4;
    }

    float acc[8][16];   // [wm*4+i][wn*4+j]
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 16; ++j) acc[i][j] = 0.0f;

    float4 pa, pb[2];
    pa = load4_guarded(A, rowBase + aRow, aK, M, K, aVec);
    As[0][aK + 0][aRow] = pa.x; As[0][aK + 1][aRow] = pa.y;
    As[0][aK + 2][aRow] = pa.z; As[0][aK + 3][aRow] = pa.w;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        pb[p] = load4_guarded(B, bRow[p], colBase + bCol[p], K, N, bVec);
        *reinterpret_cast<float4*>(&Bs[0][bRow[p]][bCol[p]]) = pb[p];
    }
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) {
            pa = load4_guarded(A, rowBase + aRow, k0 + BK + aK, M, K, aVec);
#pragma unroll
            for (int p = 0; p < 2; ++p)
                pb[p] = load4_guarded(B, k0 + BK + bRow[p], colBase + bCol[p], K, N, bVec);
        }

        // Register double-buffering: fragments of k+1 are loaded before the FMAs of k.
        float4 fa[2][2], fb[2][4];
        fa[0][0] = *reinterpret_cast<const float4*>(&As[buf][0][wRow + lr]);
        fa[0][1] = *reinterpret_cast<const float4*>(&As[buf][0][wRow + 32 + lr]);
#pragma unroll
        for (int h = 0; h < 4; ++h) fb[0][h] = *reinterpret_cast<const float4*>(&Bs[buf][0][wCol + 16 * h + lc]);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const int cur = k & 1, nxt = cur ^ 1;
            if (k + 1 < BK) {
                fa[nxt][0] = *reinterpret_cast<const float4*>(&As[buf][k + 1][wRow + lr]);
                fa[nxt][1] = *reinterpret_cast<const float4*>(&As[buf][k + 1][wRow + 32 + lr]);
#pragma unroll
                for (int h = 0; h < 4; ++h) fb[nxt][h] = *reinterpret_cast<const float4*>(&Bs[buf][k + 1][wCol + 16 * h + lc]);
            }
            const float ra[8] = {fa[cur][0].x, fa[cur][0].y, fa[cur][0].z, fa[cur][0].w,
                                 fa[cur][1].x, fa[cur][1].y, fa[cur][1].z, fa[cur][1].w};
            const float rb[16] = {fb[cur][0].x, fb[cur][0].y, fb[cur][0].z, fb[cur][0].w,
                                  fb[cur][1].x, fb[cur][1].y, fb[cur][1].z, fb[cur][1].w,
                                  fb[cur][2].x, fb[cur][2].y, fb[cur][2].z, fb[cur][2].w,
                                  fb[cur][3].x, fb[cur][3].y, fb[cur][3].z, fb[cur][3].w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 16; ++j) acc[i][j] += ra[i] * rb[j];
        }

        if (more) {
            const int nb = buf ^ 1;
            As[nb][aK + 0][aRow] = pa.x; As[nb][aK + 1][aRow] = pa.y;
            As[nb][aK + 2][aRow] = pa.z; As[nb][aK + 3][aRow] = pa.w;
#pragma unroll
            for (int p = 0; p < 2; ++p)
                *reinterpret_cast<float4*>(&Bs[nb][bRow[p]][bCol[p]]) = pb[p];
        }
        __syncthreads();
        buf ^= 1;
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gr = rowBase + wRow + (i >> 2) * 32 + lr + (i & 3);
        if (gr >= M) continue;
#pragma unroll
        for (int h = 0; h < 4; ++h) {
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
