// 83_f32_group16 — experiment: rung 09 (BK 16, grouped order) + groups of 16 block-rows instead of 8
// launch: block=256,1,1 tile=256,128 smem=49664
// dtype: f32
// arch: sm_90
//
// Changed from 09: groups of 16 block-rows instead of 8. Why it should be faster: see NOTES (issue 20 experiments).
#define BM 128
#define BN 256
#define BK 16
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
    extern __shared__ __align__(16) float smem_f[];
    float (*As)[BK][BM + APAD] = reinterpret_cast<float (*)[BK][BM + APAD]>(smem_f);
    float (*Bs)[BK][BN] = reinterpret_cast<float (*)[BK][BN]>(smem_f + 2 * BK * (BM + APAD));

    const int t = threadIdx.x;
    const int warp = t >> 5, lane = t & 31;
    const int wRow = (warp >> 2) * WM;          // 2 warps down
    const int wCol = (warp & 3) * WN;           // 4 warps across
    const int lr = (lane >> 2) * 4;             // 8 lanes down  × 4 rows
    const int lc = (lane & 3) * 4;              // 4 lanes across × 4 columns
    // Grouped block order (as rung 12): blocks running together share A and B panels in L2.
    const int gridN = gridDim.x, gridM = gridDim.y;
    const int bid = blockIdx.y * gridN + blockIdx.x;
    const int perGroup = 16 * gridN;
    const int firstM = (bid / perGroup) * 16;
    const int groupRows = min(gridM - firstM, 16);
    const int rowBase = (firstM + (bid % perGroup) % groupRows) * BM;
    const int colBase = ((bid % perGroup) / groupRows) * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;

    // A tile 128×16 = 512 float4 (2 per thread); B tile 16×256 = 1024 float4 (4 per thread).
    int aRow[2], aK[2], bRow[4], bCol[4];
#pragma unroll
    for (int p = 0; p < 2; ++p) { const int idx = t + p * NT; aRow[p] = idx >> 2; aK[p] = (idx & 3) * 4; }
#pragma unroll
    for (int p = 0; p < 4; ++p) { const int idx = t + p * NT; bRow[p] = idx >> 6; bCol[p] = (idx & 63) * 4; }

    float acc[8][16];   // [wm*4+i][wn*4+j]
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 16; ++j) acc[i][j] = 0.0f;

    float4 pa[2], pb[4];
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        pa[p] = load4_guarded(A, rowBase + aRow[p], aK[p], M, K, aVec);
        As[0][aK[p] + 0][aRow[p]] = pa[p].x; As[0][aK[p] + 1][aRow[p]] = pa[p].y;
        As[0][aK[p] + 2][aRow[p]] = pa[p].z; As[0][aK[p] + 3][aRow[p]] = pa[p].w;
    }
#pragma unroll
    for (int p = 0; p < 4; ++p) {
        pb[p] = load4_guarded(B, bRow[p], colBase + bCol[p], K, N, bVec);
        *reinterpret_cast<float4*>(&Bs[0][bRow[p]][bCol[p]]) = pb[p];
    }
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) {
#pragma unroll
            for (int p = 0; p < 2; ++p)
                pa[p] = load4_guarded(A, rowBase + aRow[p], k0 + BK + aK[p], M, K, aVec);
#pragma unroll
            for (int p = 0; p < 4; ++p)
                pb[p] = load4_guarded(B, k0 + BK + bRow[p], colBase + bCol[p], K, N, bVec);
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][wRow + lr]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][wRow + 32 + lr]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + lc]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + 16 + lc]);
            const float4 b2 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + 32 + lc]);
            const float4 b3 = *reinterpret_cast<const float4*>(&Bs[buf][k][wCol + 48 + lc]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[16] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w,
                                  b2.x, b2.y, b2.z, b2.w, b3.x, b3.y, b3.z, b3.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 16; ++j) acc[i][j] += ra[i] * rb[j];
        }

        if (more) {
            const int nb = buf ^ 1;
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                As[nb][aK[p] + 0][aRow[p]] = pa[p].x; As[nb][aK[p] + 1][aRow[p]] = pa[p].y;
                As[nb][aK[p] + 2][aRow[p]] = pa[p].z; As[nb][aK[p] + 3][aRow[p]] = pa[p].w;
            }
#pragma unroll
            for (int p = 0; p < 4; ++p)
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
