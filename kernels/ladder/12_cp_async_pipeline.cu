// 12_cp_async_pipeline — a 4-stage cp.async pipeline replaces register staging; grouped block order for L2.
// launch: block=256,1,1 tile=128,128 smem=75776
// dtype: f16
// arch: sm_90
//
// Changed from 11: (1) tiles travel from global to shared memory with cp.async (Ampere+), an
// asynchronous load instruction (not a copy engine: each thread issues its own 16-byte copies;
// Hopper's TMA is the engine) whose data lands in shared memory directly, so no registers hold
// in-flight data and no thread stalls on a global load before its st.shared. (2) Four stages of shared memory
// instead of two: while the warps multiply tile t, tiles t+1, t+2 and t+3 are already in
// flight, which covers HBM latency (~600–800 ns) even when one k-step of math is short.
// cp.async.wait_group(STAGES-2) + one barrier per k-step guarantees tile t has landed and
// everyone finished reading the stage that is refilled next. 4 × 18.5 KB = 74 KB of dynamic
// shared memory (over the 48 KB static limit: the launcher must raise the kernel's limit).
// (3) Blocks are renumbered in groups of 8 block-rows ("grouped rasterization"), so blocks
// that run at the same time share A row-panels and B column-panels in L2 instead of
// sweeping the whole of B for every row of blocks.
// Why it should be faster: the math loop no longer waits on global latency, registers freed
// from staging; L2 hit rate rises at 4096–8192. Edge chunks (unaligned or partly outside the
// matrix) are written with ordinary guarded stores instead of cp.async, zeros outside.
#define BM 128
#define BN 128
#define BK 32
#define NT 256
#define STAGES 4
#define LDA (BK + 8)
#define LDB (BN + 8)
#define A_STAGE (BM * LDA)          // halves
#define B_STAGE (BK * LDB)          // halves
#define GROUP_M 8

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

// Copy 8 halves p[row][col..col+7] into shared memory at dst: cp.async when the 16 bytes are
// aligned and inside the matrix, otherwise element by element with zeros outside.
__device__ __forceinline__ void copy8(f16bits* dst, const f16bits* p, int row, int col, int rows, int cols, bool vec)
{
    if (vec && row < rows && col + 7 < cols) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
                     :: "r"(smem_u32(dst)), "l"(p + row * cols + col) : "memory");
    } else {
#pragma unroll
        for (int e = 0; e < 8; ++e)
            dst[e] = (row < rows && col + e < cols) ? p[row * cols + col + e] : (f16bits)0;
    }
}

extern "C" __global__ void __launch_bounds__(NT, 2)
gemm(const f16bits* A, const f16bits* B, float* C, int M, int N, int K)
{
    extern __shared__ __align__(128) unsigned char smem_raw[];
    f16bits* As = reinterpret_cast<f16bits*>(smem_raw);           // [STAGES][BM][LDA]
    f16bits* Bs = As + STAGES * A_STAGE;                           // [STAGES][BK][LDB]

    // Grouped rasterization: walk GROUP_M block-rows down before moving one block-column right.
    const int gridN = gridDim.x, gridM = gridDim.y;
    const int bid = blockIdx.y * gridN + blockIdx.x;
    const int perGroup = GROUP_M * gridN;
    const int firstM = (bid / perGroup) * GROUP_M;
    const int groupRows = min(gridM - firstM, GROUP_M);
    const int bm = firstM + (bid % perGroup) % groupRows;
    const int bn = (bid % perGroup) / groupRows;
    const int rowBase = bm * BM, colBase = bn * BN;

    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int wr = (warp >> 2) * 64, wc = (warp & 3) * 32;
    const bool aVec = (K & 7) == 0, bVec = (N & 7) == 0;
    const int aR = t >> 2, aC = (t & 3) * 8;
    const int bR = t >> 4, bC = (t & 15) * 8;
    const int ntiles = (K + BK - 1) / BK;

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * BK;
        f16bits* as = As + stage * A_STAGE;
        f16bits* bs = Bs + stage * B_STAGE;
#pragma unroll
        for (int p = 0; p < 2; ++p) {
            copy8(&as[(aR + p * 64) * LDA + aC], A, rowBase + aR + p * 64, k0 + aC, M, K, aVec);
            copy8(&bs[(bR + p * 16) * LDB + bC], B, k0 + bR + p * 16, colBase + bC, K, N, bVec);
        }
    };

    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;

    // Prologue: put STAGES-1 tiles in flight. Every step commits exactly one group (possibly
    // empty) so that "wait until at most STAGES-2 groups are pending" always means "tile kt is in".
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) load_tile(s, s);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }

    for (int kt = 0; kt < ntiles; ++kt) {
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 2) : "memory");
        __syncthreads();   // tile kt visible to all; everyone is done with the stage refilled below

        const int next = kt + STAGES - 1;
        if (next < ntiles) load_tile(next, next % STAGES);
        asm volatile("cp.async.commit_group;" ::: "memory");

        const f16bits* as = As + (kt % STAGES) * A_STAGE;
        const f16bits* bs = Bs + (kt % STAGES) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[4][4], bf[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
                ldmatrix_x4(af[mi], smem_u32(&as[(wr + mi * 16 + (lane & 15)) * LDA + kk + (lane >> 4) * 8]));
#pragma unroll
            for (int q = 0; q < 2; ++q) {
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
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");   // leave no copy in flight at exit

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
