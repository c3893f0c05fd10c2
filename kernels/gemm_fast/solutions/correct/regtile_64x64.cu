// Correct: 64 x 64 tile of C per block of 16 x 16 threads, 4 x 4 outputs per thread held in
// registers; K is staged 16 at a time through shared memory (A stored transposed).
// launch: {"block": [16, 16, 1], "tile": [64, 64], "smem": 0}
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[16][64];   // As[k][m]
    __shared__ float Bs[16][64];   // Bs[k][n]
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[4][4] = {};

    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = t; i < 64 * 16; i += 256) {
            const int m = i / 16, k = i % 16;          // A tile: 64 rows x 16 k
            As[k][m] = (m0 + m < M && k0 + k < K) ? A[(size_t)(m0 + m) * K + k0 + k] : 0.0f;
            const int kb = i / 64, n = i % 64;         // B tile: 16 k x 64 columns
            Bs[kb][n] = (k0 + kb < K && n0 + n < N) ? B[(size_t)(k0 + kb) * N + n0 + n] : 0.0f;
        }
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < 16; ++k) {
            float a[4], b[4];
            #pragma unroll
            for (int i = 0; i < 4; ++i) { a[i] = As[k][ty + 16 * i]; b[i] = Bs[k][tx + 16 * i]; }
            #pragma unroll
            for (int i = 0; i < 4; ++i)
                #pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    #pragma unroll
    for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
}
