// 08_double_buffering — two shared-memory buffers; the next tile is fetched into registers during the math.
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 07: shared memory holds two copies of each tile. While the block multiplies
// tile t out of buffer t%2, each thread has already issued the global loads for tile t+1 into
// registers; after the math it writes them into the other buffer, and ONE barrier per tile
// (instead of two) separates the phases. Why this is safe with one barrier: buffer (t+1)%2 was
// last read during tile t-1, and every thread passed the barrier at the end of tile t-1 before
// anyone writes it again.
// Why it should be faster: in 07 a warp waits for its global loads (hundreds of cycles) right
// before a barrier, and only the other resident blocks can hide that. Here the loads are in
// flight while 512 FMAs per thread run, and half the barriers are gone.
// Cost: more live registers (the prefetched float4s), held at 127 like 06 by __launch_bounds__(NT, 2),
// and twice the shared memory (16,640 bytes = 16.25 KB per block).
#define BM 128
#define BN 128
#define BK 8
#define NT 256
#define APAD 4

__device__ __forceinline__ float4 load4_guarded(const float* p, int row, int col, int rows, int cols, bool vec)
{
    // Reads p[row][col .. col+3] of a rows×cols row-major matrix; zeros outside it.
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
    const int tx = t % 16, ty = t / 16;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 3) == 0;
    const bool bVec = (N & 3) == 0;
    const int aRow = t >> 1, aK = (t & 1) * 4;
    const int bRow = t >> 5, bCol = (t & 31) * 4;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    // Prologue: tile 0 straight into buffer 0.
    float4 pa = load4_guarded(A, rowBase + aRow, aK, M, K, aVec);
    float4 pb = load4_guarded(B, bRow, colBase + bCol, K, N, bVec);
    As[0][aK + 0][aRow] = pa.x; As[0][aK + 1][aRow] = pa.y;
    As[0][aK + 2][aRow] = pa.z; As[0][aK + 3][aRow] = pa.w;
    *reinterpret_cast<float4*>(&Bs[0][bRow][bCol]) = pb;
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) {   // issue the next tile's global loads now; they land while we compute
            pa = load4_guarded(A, rowBase + aRow, k0 + BK + aK, M, K, aVec);
            pb = load4_guarded(B, k0 + BK + bRow, colBase + bCol, K, N, bVec);
        }

#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][64 + tx * 4]);
            const float ra[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float rb[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += ra[i] * rb[j];
        }

        if (more) {
            const int nb = buf ^ 1;
            As[nb][aK + 0][aRow] = pa.x; As[nb][aK + 1][aRow] = pa.y;
            As[nb][aK + 2][aRow] = pa.z; As[nb][aK + 3][aRow] = pa.w;
            *reinterpret_cast<float4*>(&Bs[nb][bRow][bCol]) = pb;
        }
        __syncthreads();
        buf ^= 1;
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
