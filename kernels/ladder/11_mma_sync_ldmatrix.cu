// 11_mma_sync_ldmatrix — raw mma.sync.m16n8k16 with ldmatrix fragment loads; 128×128 tile, 8 warps.
// launch: block=256,1,1 tile=128,128 smem=0
// dtype: f16
// arch: sm_90
//
// Changed from 10: (1) the warp-level matrix instruction is the native one, PTX
// mma.sync.aligned.m16n8k16 (wmma's 16×16×16 is split into two of these by the compiler anyway),
// and its operand fragments are loaded with ldmatrix: one instruction gives every lane its
// pieces of four 8×8 matrices, .trans transposing row-major B on the way. Because we now know
// the exact register layout, the accumulators are stored straight from registers to global
// memory — no shared-memory round trip for C. (2) A bigger tile: 128×128 per block, 64×32
// per warp = 4×4 mma tiles, so each ldmatrix feeds 2–4 mma instead of 1–2. (3) The lessons of
// the float32 rungs carried over: 16-byte copies, padded rows (+8 halves) so ldmatrix rows fall
// in different banks, and double buffering with the next tile prefetched into registers.
// Why it should be faster: 4× the data reuse per shared-memory byte (block tile 4× the area),
// twice the math per fragment load, and no epilogue staging; expect several times rung 10.
#define BM 128
#define BN 128
#define BK 32
#define NT 256
#define LDA (BK + 8)   // 80-byte rows: the 8 row addresses of one ldmatrix hit 8 different 16-byte bank groups
#define LDB (BN + 8)   // 272-byte rows: the same for the transposed B loads

typedef unsigned short f16bits;

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned* r, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned* r, unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr) : "memory");
}

__device__ __forceinline__ void mma_16816(float* c, const unsigned* a, const unsigned* b)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// 8 consecutive halves p[row][col .. col+7] of a rows×cols matrix as one 16-byte value; zeros outside.
__device__ __forceinline__ uint4 load8_guarded(const f16bits* p, int row, int col, int rows, int cols, bool vec)
{
    if (vec && row < rows && col + 7 < cols)
        return *reinterpret_cast<const uint4*>(p + row * cols + col);
    unsigned h[8];
#pragma unroll
    for (int e = 0; e < 8; ++e)
        h[e] = (row < rows && col + e < cols) ? (unsigned)p[row * cols + col + e] : 0u;
    return make_uint4(h[0] | (h[1] << 16), h[2] | (h[3] << 16), h[4] | (h[5] << 16), h[6] | (h[7] << 16));
}

extern "C" __global__ void __launch_bounds__(NT, 2)
gemm(const f16bits* A, const f16bits* B, float* C, int M, int N, int K)
{
    __shared__ __align__(128) f16bits As[2][BM * LDA];
    __shared__ __align__(128) f16bits Bs[2][BK * LDB];

    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int wr = (warp >> 2) * 64, wc = (warp & 3) * 32;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 7) == 0, bVec = (N & 7) == 0;

    // Copy maps: A tile 128×32 = 512 chunks of 8 halves, B tile 32×128 = 512 chunks; 2 each per thread.
    const int aR = t >> 2, aC = (t & 3) * 8;      // chunk t; chunk t+256 is 64 rows further down
    const int bR = t >> 4, bC = (t & 15) * 8;     // chunk t; chunk t+256 is 16 rows further down

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    uint4 pa[2], pb[2];
#pragma unroll
    for (int p = 0; p < 2; ++p) {
        pa[p] = load8_guarded(A, rowBase + aR + p * 64, aC, M, K, aVec);
        pb[p] = load8_guarded(B, bR + p * 16, colBase + bC, K, N, bVec);
        *reinterpret_cast<uint4*>(&As[0][(aR + p * 64) * LDA + aC]) = pa[p];
        *reinterpret_cast<uint4*>(&Bs[0][(bR + p * 16) * LDB + bC]) = pb[p];
    }
    __syncthreads();

    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        const bool more = k0 + BK < K;
        if (more) {
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                pa[p] = load8_guarded(A, rowBase + aR + p * 64, k0 + BK + aC, M, K, aVec);
                pb[p] = load8_guarded(B, k0 + BK + bR + p * 16, colBase + bC, K, N, bVec);
            }
        }

        const f16bits* as = As[buf];
        const f16bits* bs = Bs[buf];
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[4][4], bf[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)   // lanes 0-15: rows 0-15 at k, lanes 16-31: rows 0-15 at k+8
                ldmatrix_x4(af[mi], smem_u32(&as[(wr + mi * 16 + (lane & 15)) * LDA + kk + (lane >> 4) * 8]));
#pragma unroll
            for (int q = 0; q < 2; ++q) {    // one x4.trans = k 0-15 for two 8-column tiles of B
                unsigned r[4];
                ldmatrix_x4_trans(r, smem_u32(&bs[(kk + (lane & 15)) * LDB + wc + q * 16 + (lane >> 4) * 8]));
                bf[2 * q][0] = r[0]; bf[2 * q][1] = r[1];
                bf[2 * q + 1][0] = r[2]; bf[2 * q + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int nj = 0; nj < 4; ++nj) mma_16816(acc[mi][nj], af[mi], bf[nj]);
        }

        if (more) {
            const int nb = buf ^ 1;
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                *reinterpret_cast<uint4*>(&As[nb][(aR + p * 64) * LDA + aC]) = pa[p];
                *reinterpret_cast<uint4*>(&Bs[nb][(bR + p * 16) * LDB + bC]) = pb[p];
            }
        }
        __syncthreads();
        buf ^= 1;
    }

    // Accumulator layout of m16n8: lane = 4·g + q holds (g, 2q), (g, 2q+1), (g+8, 2q), (g+8, 2q+1).
    const int g = lane >> 2, q = lane & 3;
    const bool pairOK = (N & 1) == 0;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int nj = 0; nj < 4; ++nj)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int gr = rowBase + wr + mi * 16 + g + h * 8;
                const int gc = colBase + wc + nj * 8 + q * 2;
                if (gr >= M) continue;
                const float v0 = acc[mi][nj][2 * h], v1 = acc[mi][nj][2 * h + 1];
                if (pairOK && gc + 1 < N) {
                    *reinterpret_cast<float2*>(C + gr * N + gc) = make_float2(v0, v1);
                } else {
                    if (gc < N) C[gr * N + gc] = v0;
                    if (gc + 1 < N) C[gr * N + gc + 1] = v1;
                }
            }
}
