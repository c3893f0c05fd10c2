// Correct and fast: a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread in
// registers. K advances 8 at a time; the A tile is stored transposed (As[k][m]) so that a thread
// reads its 8 A values and 8 B values as four float4 loads from shared memory. Global loads use
// float4 when rows are 16-byte aligned (K % 4 == 0 and N % 4 == 0), scalar loads otherwise.
// Thread (tx, ty) owns rows {4ty..4ty+3, 64+4ty..64+4ty+3} and the same pattern of columns.
// launch: {"block": [16, 16, 1], "tile": [128, 128], "smem": 0}
#define BM 128
#define BN 128
#define BK 8

extern "C" __global__ void __launch_bounds__(256) gemm(const float* A, const float* B, float* C,
                                                      int M, int N, int K)
{
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool vec = ((K & 3) == 0) && ((N & 3) == 0);

    // which 4 consecutive elements this thread loads from each tile
    const int a_m = t / 2, a_k = (t % 2) * 4;      // A tile: 128 rows x 8 k
    const int b_k = t / 32, b_n = (t % 32) * 4;    // B tile: 8 k x 128 columns

    float acc[8][8];
    #pragma unroll
    for (int i = 0; i < 8; ++i)
        #pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        {   // A: 4 values of row m0 + a_m, columns k0 + a_k .. + 3, stored transposed
            const int gm = m0 + a_m, gk = k0 + a_k;
            float v[4];
            if (vec && gm < M && gk + 3 < K) {
                const float4 q = *reinterpret_cast<const float4*>(A + (size_t)gm * K + gk);
                v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
            } else {
                #pragma unroll
                for (int i = 0; i < 4; ++i)
                    v[i] = (gm < M && gk + i < K) ? A[(size_t)gm * K + gk + i] : 0.0f;
            }
            #pragma unroll
            for (int i = 0; i < 4; ++i) As[a_k + i][a_m] = v[i];
        }
        {   // B: 4 values of row k0 + b_k, columns n0 + b_n .. + 3
            const int gk = k0 + b_k, gn = n0 + b_n;
            float4 q;
            if (vec && gk < K && gn + 3 < N) {
                q = *reinterpret_cast<const float4*>(B + (size_t)gk * N + gn);
            } else {
                q.x = (gk < K && gn + 0 < N) ? B[(size_t)gk * N + gn + 0] : 0.0f;
                q.y = (gk < K && gn + 1 < N) ? B[(size_t)gk * N + gn + 1] : 0.0f;
                q.z = (gk < K && gn + 2 < N) ? B[(size_t)gk * N + gn + 2] : 0.0f;
                q.w = (gk < K && gn + 3 < N) ? B[(size_t)gk * N + gn + 3] : 0.0f;
            }
            *reinterpret_cast<float4*>(&Bs[b_k][b_n]) = q;
        }
        __syncthreads();

        #pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            const float4 a0 = *reinterpret_cast<const float4*>(&As[k][4 * ty]);
            const float4 a1 = *reinterpret_cast<const float4*>(&As[k][64 + 4 * ty]);
            const float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][4 * tx]);
            const float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][64 + 4 * tx]);
            a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w;
            a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
            b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w;
            b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
            #pragma unroll
            for (int i = 0; i < 8; ++i)
                #pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

    #pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int r = m0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + (i - 4));
        if (r >= M) continue;
        #pragma unroll
        for (int jh = 0; jh < 2; ++jh) {
            const int c = n0 + jh * 64 + 4 * tx;
            float* dst = C + (size_t)r * N + c;
            if (vec && c + 3 < N) {
                *reinterpret_cast<float4*>(dst) =
                    make_float4(acc[i][4 * jh], acc[i][4 * jh + 1], acc[i][4 * jh + 2], acc[i][4 * jh + 3]);
            } else {
                #pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < N) dst[j] = acc[i][4 * jh + j];
            }
        }
    }
}
