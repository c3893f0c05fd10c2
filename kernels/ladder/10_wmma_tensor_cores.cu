// 10_wmma_tensor_cores — half-precision A and B, float accumulate, on Tensor Cores via PTX wmma.
// launch: block=128,1,1 tile=64,64 smem=0
// dtype: f16
// arch: sm_90
//
// Changed from 09: the data type and the unit that does the math. A and B are IEEE half
// (passed as raw 16-bit patterns: no headers are allowed, so there is no __half type), C is
// float. Four warps each own a 32×32 piece of a 64×64 block tile = 2×2 fragments of 16×16.
// Per 16-wide k-step a warp loads two A and two B fragments from shared memory and issues four
// 16×16×16 matrix multiply-accumulates (wmma.mma.sync): each is 4096 FMAs in one warp-wide
// instruction. <mma.h>'s wmma:: API cannot be included through the engine's header policy, so
// the same operations are written as the PTX instructions that API expands to
// (wmma.load.a / wmma.load.b / wmma.mma / wmma.store.d).
// Why it should be faster: Hopper's Tensor Cores do dense f16 math at roughly 15× the float32
// FMA rate, and operands are half the bytes. This rung is deliberately simple (one shared
// buffer, small tile, scalar-ish copies), so expect it far below cuBLAS HGEMM: the later rungs
// attack the data movement that now dominates.
// Bounds: tiles are copied through shared memory with zeros outside the matrix; results go
// through a shared float tile and are written with per-element guards.
#define BM 64
#define BN 64
#define BK 32
#define NT 128
#define LDA (BK + 8)     // halves per A row in shared memory (80 bytes: multiple of 16 as wmma needs)
#define LDB (BN + 8)     // halves per B row
#define LDC (BN + 4)     // floats per C row

typedef unsigned short f16bits;   // an IEEE binary16 value as its bit pattern

__device__ __forceinline__ unsigned smem_u32(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void __launch_bounds__(NT)
gemm(const f16bits* A, const f16bits* B, float* C, int M, int N, int K)
{
    __shared__ __align__(128) f16bits As[BM * LDA];
    __shared__ __align__(128) f16bits Bs[BK * LDB];
    __shared__ __align__(128) float Cs[BM * LDC];

    const int t = threadIdx.x, warp = t >> 5;
    const int wr = (warp >> 1) * 32, wc = (warp & 1) * 32;
    const int rowBase = blockIdx.y * BM, colBase = blockIdx.x * BN;
    const bool aVec = (K & 7) == 0, bVec = (N & 7) == 0;   // 16-byte rows of 8 halves stay aligned

    float acc[2][2][8];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[i][j][e] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        // A tile 64×32 halves = 256 chunks of 8; B tile 32×64 = 256 chunks. Two of each per thread.
#pragma unroll
        for (int p = 0; p < 2; ++p) {
            const int c = t + p * NT;
            {
                const int r = c >> 2, kc = (c & 3) * 8;
                const int gr = rowBase + r, gk = k0 + kc;
                uint4* dst = reinterpret_cast<uint4*>(&As[r * LDA + kc]);
                if (aVec && gr < M && gk + 7 < K) {
                    *dst = *reinterpret_cast<const uint4*>(A + gr * K + gk);
                } else {
#pragma unroll
                    for (int e = 0; e < 8; ++e)
                        As[r * LDA + kc + e] = (gr < M && gk + e < K) ? A[gr * K + gk + e] : (f16bits)0;
                }
            }
            {
                const int r = c >> 3, nc = (c & 7) * 8;
                const int gr = k0 + r, gc = colBase + nc;
                uint4* dst = reinterpret_cast<uint4*>(&Bs[r * LDB + nc]);
                if (bVec && gr < K && gc + 7 < N) {
                    *dst = *reinterpret_cast<const uint4*>(B + gr * N + gc);
                } else {
#pragma unroll
                    for (int e = 0; e < 8; ++e)
                        Bs[r * LDB + nc + e] = (gr < K && gc + e < N) ? B[gr * N + gc + e] : (f16bits)0;
                }
            }
        }
        __syncthreads();

#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned a[2][8], b[2][8];
#pragma unroll
            for (int i = 0; i < 2; ++i) {
                const unsigned addr = smem_u32(&As[(wr + i * 16) * LDA + kk]);
                asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 "
                             "{%0,%1,%2,%3,%4,%5,%6,%7}, [%8], %9;"
                             : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3]),
                               "=r"(a[i][4]), "=r"(a[i][5]), "=r"(a[i][6]), "=r"(a[i][7])
                             : "r"(addr), "r"(LDA) : "memory");
            }
#pragma unroll
            for (int j = 0; j < 2; ++j) {
                const unsigned addr = smem_u32(&Bs[kk * LDB + wc + j * 16]);
                asm volatile("wmma.load.b.sync.aligned.row.m16n16k16.shared.f16 "
                             "{%0,%1,%2,%3,%4,%5,%6,%7}, [%8], %9;"
                             : "=r"(b[j][0]), "=r"(b[j][1]), "=r"(b[j][2]), "=r"(b[j][3]),
                               "=r"(b[j][4]), "=r"(b[j][5]), "=r"(b[j][6]), "=r"(b[j][7])
                             : "r"(addr), "r"(LDB) : "memory");
            }
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) {
                    float* d = acc[i][j];
                    asm volatile("wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 "
                                 "{%0,%1,%2,%3,%4,%5,%6,%7}, "
                                 "{%8,%9,%10,%11,%12,%13,%14,%15}, "
                                 "{%16,%17,%18,%19,%20,%21,%22,%23}, "
                                 "{%0,%1,%2,%3,%4,%5,%6,%7};"
                                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
                                   "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                                 : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]),
                                   "r"(a[i][4]), "r"(a[i][5]), "r"(a[i][6]), "r"(a[i][7]),
                                   "r"(b[j][0]), "r"(b[j][1]), "r"(b[j][2]), "r"(b[j][3]),
                                   "r"(b[j][4]), "r"(b[j][5]), "r"(b[j][6]), "r"(b[j][7]));
                }
        }
        __syncthreads();
    }

    // Fragments -> shared float tile -> guarded, coalesced global stores.
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const float* d = acc[i][j];
            const unsigned addr = smem_u32(&Cs[(wr + i * 16) * LDC + wc + j * 16]);
            asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.shared.f32 "
                         "[%0], {%1,%2,%3,%4,%5,%6,%7,%8}, %9;"
                         :: "r"(addr), "f"(d[0]), "f"(d[1]), "f"(d[2]), "f"(d[3]),
                            "f"(d[4]), "f"(d[5]), "f"(d[6]), "f"(d[7]), "r"(LDC) : "memory");
        }
    __syncthreads();
    for (int e = t; e < BM * BN; e += NT) {
        const int r = e / BN, c = e % BN;
        const int gr = rowBase + r, gc = colBase + c;
        if (gr < M && gc < N) C[gr * N + gc] = Cs[r * LDC + c];
    }
}
