// 98_warp_128x256_cp16 — 128×256 warp-tiled SGEMM, every copy a 16-byte cp.async (A kept row-major).
// launch: block=256,1,1 tile=256,128 smem=79872
// dtype: f32
// arch: sm_90
// EXPERIMENT: like 97, but A is not transposed: rows of A land in shared memory with 16-byte
// cp.async (rows padded to 80 bytes), and the inner loop reads 4 consecutive k of one row per
// float4. A lane owns rows tr, tr+8, tr+16, tr+24 (+32) so the 8 rows a warp reads at once are
// consecutive and, with the 80-byte pitch, fall in 8 different 16-byte bank groups.
#define BM 128
#define BN 256
#define BK 16
#define NT 256
#define LDA (BK + 4)          // floats per A row in shared memory (80 bytes)
#define WM 64
#define WN 64
#define STAGES 3
#define A_STAGE (BM * LDA)
#define B_STAGE (BK * BN)

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ float comp(const float4& v, int i)
{
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

extern "C" __global__ void __launch_bounds__(NT, 1)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                       // [STAGES][BM][LDA]
    float* Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN]

    const int t = threadIdx.x;
    const int warp = t >> 5, lane = t & 31;
    const int wRow = (warp >> 2) * WM, wCol = (warp & 3) * WN;
    const int tr = lane >> 2, lc = (lane & 3) * 4;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 3) == 0, bVec = (N & 3) == 0;
    const int ntiles = (K + BK - 1) / BK;

    auto load_tile = [&](int kt, int s) {
        const int k0 = kt * BK;
        float* as = As + s * A_STAGE;
        float* bs = Bs + s * B_STAGE;
#pragma unroll
        for (int p = 0; p < (BM * BK) / (4 * NT); ++p) {   // 2 float4 of A
            const int idx = t + p * NT, m = idx >> 2, kq = (idx & 3) * 4;
            const int gm = rowBase + m, gk = k0 + kq;
            float* dst = &as[m * LDA + kq];
            if (aVec && gm < M && gk + 3 < K) {
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32(dst)), "l"(A + gm * K + gk) : "memory");
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) dst[e] = (gm < M && gk + e < K) ? A[gm * K + gk + e] : 0.0f;
            }
        }
#pragma unroll
        for (int p = 0; p < (BK * BN) / (4 * NT); ++p) {   // 4 float4 of B
            const int idx = t + p * NT, k = idx >> 6, n = (idx & 63) * 4;
            const int gk = k0 + k, gn = colBase + n;
            float* dst = &bs[k * BN + n];
            if (bVec && gk < K && gn + 3 < N) {
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem_u32(dst)), "l"(B + gk * N + gn) : "memory");
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) dst[e] = (gk < K && gn + e < N) ? B[gk * N + gn + e] : 0.0f;
            }
        }
    };

    float acc[8][16];   // i = wm*4 + c -> row wRow + wm*32 + tr + 8c; j = wn*4 + jj -> col wCol + 16wn + lc + jj
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 16; ++j) acc[i][j] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) load_tile(s, s);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }

    for (int kt = 0; kt < ntiles; ++kt) {
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 2) : "memory");
        __syncthreads();
        const int next = kt + STAGES - 1;
        if (next < ntiles) load_tile(next, next % STAGES);
        asm volatile("cp.async.commit_group;" ::: "memory");

        const float* as = As + (kt % STAGES) * A_STAGE;
        const float* bs = Bs + (kt % STAGES) * B_STAGE;
#pragma unroll
        for (int kc = 0; kc < BK / 4; ++kc) {
            float4 av[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                av[i] = *reinterpret_cast<const float4*>(&as[(wRow + (i >> 2) * 32 + tr + 8 * (i & 3)) * LDA + kc * 4]);
#pragma unroll
            for (int kk = 0; kk < 4; ++kk) {
                const float* brow = &bs[(kc * 4 + kk) * BN + wCol + lc];
                const float4 b0 = *reinterpret_cast<const float4*>(brow);
                const float4 b1 = *reinterpret_cast<const float4*>(brow + 16);
                const float4 b2 = *reinterpret_cast<const float4*>(brow + 32);
                const float4 b3 = *reinterpret_cast<const float4*>(brow + 48);
                const float rb[16] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w,
                                      b2.x, b2.y, b2.z, b2.w, b3.x, b3.y, b3.z, b3.w};
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const float a = comp(av[i], kk);
#pragma unroll
                    for (int j = 0; j < 16; ++j) acc[i][j] += a * rb[j];
                }
            }
        }
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gr = rowBase + wRow + (i >> 2) * 32 + tr + 8 * (i & 3);
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
