// 94_warp_cpasync3 — 09's warp tiling fed by a 3-stage cp.async pipeline instead of register staging.
// launch: block=256,1,1 tile=128,128 smem=49920
// dtype: f32
// arch: sm_90
// EXPERIMENT (variant of 09_warp_tiling): global->shared copies by cp.async (A transposed element by
// element with 4-byte copies, B with 16-byte copies), 3 stages in flight, no staging registers.
#define BM 128
#define BN 128
#define BK 16
#define NT 256
#define APAD 4
#define WM 64
#define WN 32
#define STAGES 3
#define A_STAGE (BK * (BM + APAD))
#define B_STAGE (BK * BN)

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void __launch_bounds__(NT, 2)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    extern __shared__ __align__(16) float smem[];
    float* As = smem;                       // [STAGES][BK][BM + APAD], A transposed
    float* Bs = smem + STAGES * A_STAGE;    // [STAGES][BK][BN]

    const int t = threadIdx.x;
    const int warp = t >> 5, lane = t & 31;
    const int wRow = (warp >> 2) * WM, wCol = (warp & 3) * WN;
    const int lr = (lane >> 2) * 4, lc = (lane & 3) * 4;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool bVec = (N & 3) == 0;
    const int ntiles = (K + BK - 1) / BK;

    auto load_tile = [&](int kt, int s) {
        const int k0 = kt * BK;
        float* as = As + s * A_STAGE;
        float* bs = Bs + s * B_STAGE;
#pragma unroll
        for (int p = 0; p < (BM * BK) / NT; ++p) {      // 8 elements of A: 16 threads per row of A
            const int idx = t + p * NT, m = idx >> 4, k = idx & 15;
            const int gm = rowBase + m, gk = k0 + k;
            float* dst = &as[k * (BM + APAD) + m];
            if (gm < M && gk < K)
                asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(dst)), "l"(A + gm * K + gk) : "memory");
            else
                *dst = 0.0f;
        }
#pragma unroll
        for (int p = 0; p < (BK * BN) / (4 * NT); ++p) { // 2 float4 of B
            const int idx = t + p * NT, k = idx >> 5, n = (idx & 31) * 4;
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

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

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
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&as[k * (BM + APAD) + wRow + lr]);
            const float4 a1 = *reinterpret_cast<const float4*>(&as[k * (BM + APAD) + wRow + 32 + lr]);
            const float4 b0 = *reinterpret_cast<const float4*>(&bs[k * BN + wCol + lc]);
            const float4 b1 = *reinterpret_cast<const float4*>(&bs[k * BN + wCol + 16 + lc]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
        }
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

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
