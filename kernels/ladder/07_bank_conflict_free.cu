// 07_bank_conflict_free — pad the transposed A tile and split each thread's 8 columns into 4+4.
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 06: two shared-memory bank conflicts removed.
// (1) Inner-loop reads of B: in 06 thread tx read Bs[k][8·tx .. 8·tx+7]. A float4 request is
//     served 8 lanes at a time; lanes 0 and 4 then hit bytes 0 and 128, i.e. the same four banks:
//     a 2-way conflict on every B load. Now each thread owns columns 4·tx..4·tx+3 and
//     64+4·tx..64+4·tx+3, so 8 neighbouring lanes read 128 consecutive bytes: one wavefront.
//     The same split is applied to rows (4·ty.. and 64+4·ty..).
// (2) Transposed stores of A: lanes with the same m but k-offsets 0 and 4 wrote addresses
//     4·128 floats apart — same bank. Each row of As is padded from 128 to 132 floats, which moves
//     the second group 16 banks over (132 keeps rows 16-byte aligned for float4 reads).
// Why it should be faster: shared-memory wavefronts per k drop from 6 to 4 for the warp's loads,
// so the LSU pipe stops stalling the FMA stream.
#define BM 128
#define BN 128
#define BK 8
#define NT 256
#define APAD 4

extern "C" __global__ void __launch_bounds__(NT)
gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM + APAD];   // transposed and padded
    __shared__ __align__(16) float Bs[BK][BN];

    const int t = threadIdx.x;
    const int tx = t % 16, ty = t / 16;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;
    const int aRow = t >> 1, aK = (t & 1) * 4;
    const int bRow = t >> 5, bCol = (t & 31) * 4;

    // acc[i][j]: i<4 -> row 4·ty+i, i>=4 -> row 64+4·ty+(i-4); the same split for columns.
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

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
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][64 + tx * 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int gr = rowBase + (i < 4 ? ty * 4 + i : 64 + ty * 4 + (i - 4));
        if (gr >= M) continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gc = colBase + h * 64 + tx * 4;
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
