// 13_wgmma — Hopper warpgroup MMA (wgmma.mma_async, sm_90a) reading both operands from swizzled shared memory.
// launch: block=256,1,1 tile=256,128 smem=197632
// dtype: f16
// arch: sm_90a
//
// Changed from 12: the matrix instruction. mma.sync is a warp-wide instruction whose operands
// must first be copied from shared memory into registers (ldmatrix); Hopper's wgmma is issued by
// a whole warpgroup (4 warps, 128 threads), reads A and B directly from shared memory through
// 64-bit "matrix descriptors", runs asynchronously, and computes a 64×256×16 product per
// instruction. Two warpgroups each own 64 rows of a 128×256 block tile (128 float accumulators
// per thread). Shared memory uses the 128-byte swizzle that wgmma (and TMA) understand:
// inside every 1024-byte block of 8 rows × 128 bytes, 16-byte chunk c of row r is stored at
// chunk c XOR (r mod 8), so the 8 rows a tensor-core read touches fall in different banks.
// A (row-major, K contiguous) is "K-major"; B (row-major, N contiguous) is "N-major", which
// wgmma accepts for 16-bit types through its transpose-B flag — no transposing copy needed.
// The copy side is rung 12's: cp.async, 4 stages of 48 KB (192 KB + 1 KB for alignment).
// Ordering: cp.async and plain stores are "generic proxy" writes, wgmma reads through the
// "async proxy", so each thread runs fence.proxy.async.shared::cta before the barrier that
// publishes a stage. Per k-tile: barrier, issue 4 wgmma (async), issue the next copies while
// the tensor cores work, then wgmma.wait_group 0 so the stage can be refilled later.
// Why it should be faster: no ldmatrix traffic through registers, 4× larger instructions, and
// the warpgroup path is the only one that reaches Hopper's full dense f16 rate.
// Not done (what cuBLAS adds): TMA bulk copies, warp-specialised producer/consumer warpgroups,
// keeping one wgmma batch in flight across the barrier, thread-block clusters with multicast.
#define BM 128
#define BN 256
#define BK 64
#define NT 256
#define STAGES 4
#define A_STAGE_BYTES (BM * BK * 2)          // 16 KB: 128 rows × 128 bytes
#define B_STAGE_BYTES (BK * BN * 2)          // 32 KB: 4 panels of 64 columns × 64 rows × 128 bytes
#define B_PANEL_BYTES (BK * 128)             // one 64-column panel: 64 k-rows × 128 bytes
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define GROUP_M 8

typedef unsigned short f16bits;

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Descriptor for a 128B-swizzled operand: start address, leading/stride byte offsets, mode 1 (128B).
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4)
         | ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16)
         | ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32)
         | (1ull << 62);
}

// 16 bytes (8 halves) of a rows×cols matrix at (row, col) into shared address dst: cp.async when
// aligned and inside, otherwise plain stores with zeros outside.
__device__ __forceinline__ void copy16(unsigned dst, const f16bits* p, int row, int col, int rows, int cols, bool vec)
{
    if (vec && row < rows && col + 7 < cols) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(p + row * cols + col) : "memory");
    } else {
        unsigned h[8];
#pragma unroll
        for (int e = 0; e < 8; ++e)
            h[e] = (row < rows && col + e < cols) ? (unsigned)p[row * cols + col + e] : 0u;
        asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};"
                     :: "r"(dst), "r"(h[0] | (h[1] << 16)), "r"(h[2] | (h[3] << 16)),
                        "r"(h[4] | (h[5] << 16)), "r"(h[6] | (h[7] << 16)) : "memory");
    }
}

__device__ __forceinline__ void wgmma_m64n256k16(float* d, unsigned long long da, unsigned long long db)
{
    // d = A·B + d; scale-d = 1, scales a/b = 1, A K-major (0), B N-major (1).
    asm volatile(
        "{\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, 1, 1, 1, 0, 1;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(da), "l"(db));
}

extern "C" __global__ void __launch_bounds__(NT, 1)
gemm(const f16bits* A, const f16bits* B, float* C, int M, int N, int K)
{
    extern __shared__ unsigned char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;   // 128B swizzle repeats every 1024 bytes

    const int gridN = gridDim.x, gridM = gridDim.y;
    const int bid = blockIdx.y * gridN + blockIdx.x;
    const int perGroup = GROUP_M * gridN;
    const int firstM = (bid / perGroup) * GROUP_M;
    const int groupRows = min(gridM - firstM, GROUP_M);
    const int rowBase = (firstM + (bid % perGroup) % groupRows) * BM;
    const int colBase = ((bid % perGroup) / groupRows) * BN;

    const int t = threadIdx.x;
    const int wg = t >> 7;                       // warpgroup 0 or 1: rows 64·wg .. 64·wg+63
    const bool aVec = (K & 7) == 0, bVec = (N & 7) == 0;
    const int ntiles = (K + BK - 1) / BK;

    auto load_tile = [&](int kt, int stage) {
        const int k0 = kt * BK;
        const unsigned sa = base + stage * STAGE_BYTES;
        const unsigned sb = sa + A_STAGE_BYTES;
#pragma unroll
        for (int p = 0; p < 4; ++p) {            // A: 128 rows × 8 chunks
            const int c = t + p * NT, m = c >> 3, kc = c & 7;
            copy16(sa + m * 128 + ((kc ^ (m & 7)) << 4), A, rowBase + m, k0 + kc * 8, M, K, aVec);
        }
#pragma unroll
        for (int p = 0; p < 8; ++p) {            // B: 64 rows × 32 chunks, stored as 4 panels of 64 columns
            const int c = t + p * NT, k = c >> 5, nc = c & 31;
            copy16(sb + (nc >> 3) * B_PANEL_BYTES + k * 128 + (((nc & 7) ^ (k & 7)) << 4),
                   B, k0 + k, colBase + nc * 8, K, N, bVec);
        }
    };

    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) load_tile(s, s);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }

    for (int kt = 0; kt < ntiles; ++kt) {
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 2) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // my writes -> visible to wgmma
        __syncthreads();

        const unsigned sa = base + (kt % STAGES) * STAGE_BYTES + wg * 64 * 128;
        const unsigned sb = base + (kt % STAGES) * STAGE_BYTES + A_STAGE_BYTES;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            // A: step 16 halves = 32 bytes along the swizzled row; SBO = 1024 (next 8 rows).
            // B: step 16 k-rows = 2048 bytes; LBO = one 64-column panel, SBO = 1024 (next 8 k-rows).
            wgmma_m64n256k16(d, make_desc(sa + kk * 32, 16, 1024),
                                make_desc(sb + kk * 16 * 128, B_PANEL_BYTES, 1024));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");

        // While the tensor cores run, refill the stage that tile kt-1 used (everyone finished it:
        // each thread waited for its wgmma group before the barrier above).
        const int next = kt + STAGES - 1;
        if (next < ntiles) load_tile(next, next % STAGES);
        asm volatile("cp.async.commit_group;" ::: "memory");

        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");

    // Accumulator layout (m64nN, f32): warp w of the warpgroup has rows 16w..16w+15; inside it,
    // lane 4g+q holds for every 8-column chunk j: (g, 8j+2q), (g, 8j+2q+1), (g+8, 8j+2q), (g+8, 8j+2q+1).
    const int w = (t >> 5) & 3, lane = t & 31, g = lane >> 2, q = lane & 3;
    const bool pairOK = (N & 1) == 0;
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gr = rowBase + wg * 64 + w * 16 + g + h * 8;
            const int gc = colBase + j * 8 + q * 2;
            if (gr >= M) continue;
            const float v0 = d[4 * j + 2 * h], v1 = d[4 * j + 2 * h + 1];
            if (pairOK && gc + 1 < N) {
                *reinterpret_cast<float2*>(C + gr * N + gc) = make_float2(v0, v1);
            } else {
                if (gc < N) C[gr * N + gc] = v0;
                if (gc + 1 < N) C[gr * N + gc + 1] = v1;
            }
        }
}
