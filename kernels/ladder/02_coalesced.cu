// 02_coalesced — the same arithmetic as 01 with threadIdx.x mapped to the COLUMN of C.
// launch: block=32,32,1 tile=32,32 smem=0
// dtype: f32
// arch: sm_90
//
// Changed from 01: only the thread-to-element mapping. Now the 32 lanes of a warp own 32
// neighbouring columns of one row of C, so
//   * B[k*N + col] for the warp is 32 consecutive floats: one 128-byte transaction instead of 32;
//   * A[row*K + k] is the same address for the whole warp: one broadcast;
//   * the store to C is one 128-byte line.
// Why it should be faster: the bytes requested per warp per k drop from ~32 sectors to ~5,
// so the kernel stops being limited by the number of memory transactions. It still reads
// every operand from global memory (through L1/L2) K times: rung 03 attacks that.
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int row = blockIdx.y * 32 + threadIdx.y;
    const int col = blockIdx.x * 32 + threadIdx.x;   // lanes of a warp -> consecutive COLUMNS
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
