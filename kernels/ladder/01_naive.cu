// 01_naive — one thread computes one element of C by walking a row of A and a column of B.
// launch: block=32,32,1 tile=32,32 smem=0
// dtype: f32
// arch: sm_90
//
// What this rung is: the baseline. Every multiply-add reads both operands straight from global
// memory, so the kernel moves about 2·K·4 bytes per output and leans entirely on the caches.
// The thread mapping is deliberately the "wrong" one: threadIdx.x (the fast-changing index inside
// a warp) walks DOWN the rows of C. The 32 threads of a warp then read 32 different rows of A
// (addresses K·4 bytes apart: 32 separate memory transactions per load) and write 32 different
// rows of C. Rung 02 fixes only that mapping.
// Grid: (ceil(N/32), ceil(M/32)); block (x, y) covers rows y·32.. and columns x·32.. of C.
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 32 + threadIdx.x;   // lanes of a warp -> consecutive ROWS
    const int col = blockIdx.x * 32 + threadIdx.y;
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
