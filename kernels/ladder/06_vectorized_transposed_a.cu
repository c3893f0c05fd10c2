// 06_vectorized_transposed_a — 16-byte (float4) loads from global and shared memory; A stored transposed.
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 05: (1) each thread copies its share of a tile with ONE float4 load per matrix
// instead of four scalar loads; (2) the A tile is written into shared memory transposed,
// As[k][m], so that in the inner loop the 8 values of A a thread needs for one k are 8
// consecutive floats — two float4 shared loads instead of eight scalar ones. B's 8 values
// were already consecutive and are read as two float4 as well.
// Why it should be faster: per tile the thread issues 2 global-load instructions instead of 8,
// leaving more issue slots for FMAs. (In the source the shared loads also drop from 16 to 4 per
// k, but the SASS of 05 already had 4 LDS.128 per k: the compiler had merged them.)
// Bounds: a float4 load is used only when it is aligned (K or N a multiple of 4; the base
// pointer from cudaMalloc is 256-byte aligned) and lies wholly inside the matrix; otherwise the
// thread falls back to guarded scalar loads that write zeros outside. Same for the stores.
#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256

extern "C" __global__ void __launch_bounds__(NT)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM];   // transposed: As[k][m]
    __shared__ __align__(16) float Bs[BK][BN];

    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;

    // A tile 128×8 = 256 float4: thread t copies row t/2, k-offset (t%2)*4.
    const int aRow = t >> 1, aK = (t & 1) * 4;
    // B tile 8×128 = 256 float4: thread t copies row t/32, columns (t%32)*4 .. +3.
    const int bRow = t >> 5, bCol = (t & 31) * 4;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        {
            const int gr = rowBase + aRow, gk = k0 + aK;
            float4 v;
            if (aVec && gr < M && gk + 3 < K) {
                v = *reinterpret_cast<const float4*>(A + gr * K + gk);
            } else {
                const bool r = gr < M;
                v.x = (r && gk     < K) ? A[gr * K + gk]     : 0.0f;
                v.y = (r && gk + 1 < K) ? A[gr * K + gk + 1] : 0.0f;
                v.z = (r && gk + 2 < K) ? A[gr * K + gk + 2] : 0.0f;
                v.w = (r && gk + 3 < K) ? A[gr * K + gk + 3] : 0.0f;
            }
            As[aK + 0][aRow] = v.x;
            As[aK + 1][aRow] = v.y;
            As[aK + 2][aRow] = v.z;
            As[aK + 3][aRow] = v.w;
        }
        {
            const int gr = k0 + bRow, gc = colBase + bCol;
            float4 v;
            if (bVec && gr < K && gc + 3 < N) {
                v = *reinterpret_cast<const float4*>(B + gr * N + gc);
            } else {
                const bool r = gr < K;
                v.x = (r && gc     < N) ? B[gr * N + gc]     : 0.0f;
                v.y = (r && gc + 1 < N) ? B[gr * N + gc + 1] : 0.0f;
                v.z = (r && gc + 2 < N) ? B[gr * N + gc + 2] : 0.0f;
                v.w = (r && gc + 3 < N) ? B[gr * N + gc + 3] : 0.0f;
            }
            *reinterpret_cast<float4*>(&Bs[bRow][bCol]) = v;
        }
        __syncthreads();

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][ty * TM]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][ty * TM + 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tx * TN]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][tx * TN + 4]);
            const float ra[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
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
        for (int h = 0; h < 2; ++h) {
            const int gc = colBase + tx * TN + h * 4;
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
