// 16_persistent — a persistent warp-specialised kernel: one block per SM walking 128×256 tiles in L2-friendly order.
// launch: block=384,1,1 tile=256,128 smem=197696
// dtype: f16
// arch: sm_90a
// tma: A=64x128 B=64x64
// grid: persistent
//
// Changed from 15: the grid. Instead of one block per tile (2048 blocks at 8192³, launched in
// waves, each paying its prologue: barrier setup, filling the pipeline, writing C with the
// tensor cores idle), the grid has one block per SM (132 on an H100) and each block loops over
// tiles tile = blockIdx.x, +gridDim.x, ... The producer and the consumers walk the same tile
// sequence and their stage/phase counters run on across tiles, so while the consumers write one
// tile's C from registers, the producer is already loading the next tile's first stages. Tile
// numbers map to (row, column) in groups of 8 tile-rows (rasterisation), so the ~132 tiles in
// flight at a time share 8 panels of A and ~17 of B in the 50 MB L2.
// Why it should be faster: the epilogue and the pipeline fill overlap with loads, and no block
// launches or prologues after the first.
// Not done (what cuBLAS adds): thread-block clusters with TMA multicast of the shared panels,
// two consumer warpgroups on different tiles in ping-pong, a TMA store epilogue.
#define BM 128
#define BN 256
#define BK 64
#define STAGES 4
#define A_STAGE_BYTES (BM * BK * 2)          // 16 KB: 128 rows × 128 bytes
#define B_STAGE_BYTES (BK * BN * 2)          // 32 KB: 4 panels of 64 columns × 64 rows × 128 bytes
#define B_PANEL_BYTES (BK * 128)             // one 64-column panel: 64 k-rows × 128 bytes
#define STAGE_BYTES (A_STAGE_BYTES + B_STAGE_BYTES)
#define GROUP_M 8

typedef unsigned short f16bits;

// The host's CUtensorMap (cuTensorMapEncodeTiled): 128 opaque bytes, 64-byte aligned.
struct __align__(64) TensorMap { unsigned long long opaque[16]; };

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---- mbarrier: a shared-memory barrier that counts arrivals AND bytes delivered by the copy engine
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
// Arrive and announce how many bytes the copies of this phase will deliver (expect-tx).
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(unsigned bar, unsigned parity)
{
    unsigned ok;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
    return ok != 0;
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    while (!mbar_try_wait(bar, parity)) { }
}

// ---- TMA: one 2-D box of a tensor map into shared memory, completing on an mbarrier.
// x: element index along the contiguous dimension, y: row. Parts of the box outside the matrix
// are filled with zeros by the copy engine, so partial tiles need no code.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int x, int y, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(dst), "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}

// Descriptor for a 128B-swizzled operand: start address, leading/stride byte offsets, mode 1 (128B).
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4)
         | ((unsigned long long)((lbo & 0x3FFFF) >> 4) << 16)
         | ((unsigned long long)((sbo & 0x3FFFF) >> 4) << 32)
         | (1ull << 62);
}

// Fallback copy when a row of A or B is not a multiple of 16 bytes (K or N not a multiple of 8):
// a tensor map needs 16-byte row strides, so the copy engine cannot be used. 16 bytes (8 halves)
// of a rows×cols matrix at (row, col), zeros outside, written with ordinary stores.
__device__ __forceinline__ void store16(unsigned dst, const f16bits* p, int row, int col, int rows, int cols)
{
    unsigned h[8];
#pragma unroll
    for (int e = 0; e < 8; ++e)
        h[e] = (row < rows && col + e < cols) ? (unsigned)p[row * cols + col + e] : 0u;
    asm volatile("st.shared.v4.b32 [%0], {%1,%2,%3,%4};"
                 :: "r"(dst), "r"(h[0] | (h[1] << 16)), "r"(h[2] | (h[3] << 16)),
                    "r"(h[4] | (h[5] << 16)), "r"(h[6] | (h[7] << 16)) : "memory");
}

// Same swizzled layout as the TMA writes (and as rung 13): chunk c of row r at c XOR (r mod 8).
// `lane`/`lanes`: this thread's share of the copy.
__device__ __forceinline__ void load_stage_by_hand(unsigned sa, const f16bits* A, const f16bits* B, int M, int N, int K,
                                                   int rowBase, int colBase, int k0, int lane, int lanes)
{
    const unsigned sb = sa + A_STAGE_BYTES;
    for (int c = lane; c < BM * 8; c += lanes) {
        const int m = c >> 3, kc = c & 7;
        store16(sa + m * 128 + ((kc ^ (m & 7)) << 4), A, rowBase + m, k0 + kc * 8, M, K);
    }
    for (int c = lane; c < BK * 32; c += lanes) {
        const int k = c >> 5, nc = c & 31;
        store16(sb + (nc >> 3) * B_PANEL_BYTES + k * 128 + (((nc & 7) ^ (k & 7)) << 4), B, k0 + k, colBase + nc * 8, K, N);
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // my stores -> visible to wgmma
}

// One stage through the copy engine: 1 box of A (128 rows × 64 k) and 4 boxes of B (64 k × 64 columns).
__device__ __forceinline__ void load_stage_tma(unsigned sa, unsigned bar, const TensorMap* mapA, const TensorMap* mapB,
                                               int rowBase, int colBase, int k0)
{
    mbar_arrive_expect_tx(bar, STAGE_BYTES);
    tma_load_2d(sa, mapA, k0, rowBase, bar);
#pragma unroll
    for (int p = 0; p < 4; ++p)
        tma_load_2d(sa + A_STAGE_BYTES + p * B_PANEL_BYTES, mapB, colBase + p * 64, k0, bar);
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


// Accumulator layout (m64nN, f32): warp w of the warpgroup has rows 16w..16w+15; inside it,
// lane 4g+q holds for every 8-column chunk j: (g, 8j+2q), (g, 8j+2q+1), (g+8, 8j+2q), (g+8, 8j+2q+1).
__device__ __forceinline__ void store_tile(const float* d, float* C, int M, int N, int row0, int colBase, int t)
{
    const int w = (t >> 5) & 3, lane = t & 31, g = lane >> 2, q = lane & 3;
    const bool pairOK = (N & 1) == 0;
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int gr = row0 + w * 16 + g + h * 8;
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

// Tile number -> (first row, first column) of C, in groups of GROUP_M tile-rows: tiles that run at
// the same time share panels of A and B in L2.
__device__ __forceinline__ void tile_origin(int tile, int tilesM, int tilesN, int& rowBase, int& colBase)
{
    const int perGroup = GROUP_M * tilesN;
    const int firstM = (tile / perGroup) * GROUP_M;
    const int groupRows = min(tilesM - firstM, GROUP_M);
    rowBase = (firstM + (tile % perGroup) % groupRows) * BM;
    colBase = ((tile % perGroup) / groupRows) * BN;
}

// The 4 wgmma of one 64-wide k-tile for a warpgroup's 64 rows (same descriptors as rung 13).
__device__ __forceinline__ void mma_ktile(float* d, unsigned sa, unsigned sb)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk)
        wgmma_m64n256k16(d, make_desc(sa + kk * 32, 16, 1024), make_desc(sb + kk * 16 * 128, B_PANEL_BYTES, 1024));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

#define FULL(s) (bars + 8u * (s))                 // stage s holds data: 1 arrival + STAGE_BYTES of tx
#define EMPTY(s) (bars + 8u * (STAGES + (s)))     // stage s may be refilled: one arrival per consumer warp

extern "C" __global__ void __launch_bounds__(384, 1)
gemm(const f16bits* A, const f16bits* B, float* C, int M, int N, int K,
     const __grid_constant__ TensorMap mapA, const __grid_constant__ TensorMap mapB)
{
    extern __shared__ unsigned char smem_raw[];
    const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;   // 128B swizzle repeats every 1024 bytes
    const unsigned bars = base + STAGES * STAGE_BYTES;

    const int t = threadIdx.x, wg = t >> 7, lane = t & 31;
    const bool tma = (K & 7) == 0 && (N & 7) == 0;   // tensor maps need 16-byte row strides
    const int tilesN = (N + BN - 1) / BN, tilesM = (M + BM - 1) / BM, numTiles = tilesN * tilesM;
    const int ktiles = (K + BK - 1) / BK;

    if (t == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(FULL(s), 1);
            mbar_init(EMPTY(s), 8);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (wg == 0) {
        // Producer warpgroup: gives registers away; one warp (one thread with TMA) feeds the stages.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
        if ((t >> 5) == 0) {
            unsigned it = 0;                             // k-tiles produced so far (all tiles)
            for (int tile = (int)blockIdx.x; tile < numTiles; tile += (int)gridDim.x) {
                int rowBase, colBase;
                tile_origin(tile, tilesM, tilesN, rowBase, colBase);
                for (int kt = 0; kt < ktiles; ++kt, ++it) {
                    const unsigned s = it % STAGES, phase = (it / STAGES) & 1u;
                    mbar_wait(EMPTY(s), phase ^ 1u);    // both consumers released it (first pass: free)
                    const unsigned sa = base + s * STAGE_BYTES;
                    if (tma) {
                        if (lane == 0) load_stage_tma(sa, FULL(s), &mapA, &mapB, rowBase, colBase, kt * BK);
                    } else {
                        load_stage_by_hand(sa, A, B, M, N, K, rowBase, colBase, kt * BK, lane, 32);
                        __syncwarp();
                        if (lane == 0) mbar_arrive(FULL(s));
                    }
                }
            }
        }
    } else {
        // Consumer warpgroups 1 and 2: rows 64·(wg−1) .. +63 of each 128×256 tile.
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
        const int row0 = (wg - 1) * 64;
        unsigned it = 0;
        float d[128];
        for (int tile = (int)blockIdx.x; tile < numTiles; tile += (int)gridDim.x) {
            int rowBase, colBase;
            tile_origin(tile, tilesM, tilesN, rowBase, colBase);
#pragma unroll
            for (int i = 0; i < 128; ++i) d[i] = 0.0f;
            unsigned prev = 0;
            for (int kt = 0; kt < ktiles; ++kt, ++it) {
                const unsigned s = it % STAGES, phase = (it / STAGES) & 1u;
                mbar_wait(FULL(s), phase);               // the copy engine delivered every byte
                const unsigned sa = base + s * STAGE_BYTES;
                mma_ktile(d, sa + row0 * 128, sa + A_STAGE_BYTES);
                // Keep this k-tile's wgmma in flight; the previous one is done: release its stage.
                asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
                if (kt > 0 && lane == 0) mbar_arrive(EMPTY(prev));
                prev = s;
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
            if (ktiles > 0 && lane == 0) mbar_arrive(EMPTY(prev));
            store_tile(d, C, M, N, rowBase + row0, colBase, t & 127);   // the producer is already loading the next tile
        }
    }
}
