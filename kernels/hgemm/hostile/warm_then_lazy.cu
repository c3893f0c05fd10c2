// HOSTILE: honest for its first 12 launches (hgemm's 12 correctness sizes), then returns at once
// without writing C -- a kernel that only behaves while it thinks it is being checked.
// expect: WRONG_ANSWER
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
//
// The launch count moves only when every block of a launch has read it (the last block to finish
// counts the launch), so all blocks of one launch agree: honest or lazy, never half of each. (A
// count bumped by block (0,0) at the start raced with the other blocks of the 12th launch, which
// made the catch land at correctness or at the timed run by chance.)
// 한국어: 처음 12번 launch(hgemm의 정확성 크기 12개)에서는 정직하게 계산하고, 그 뒤로는 C를 쓰지 않고
// 바로 돌아가요. 검사받는다고 생각할 때만 제대로 하는 커널이에요. launch 횟수는 그 launch의 모든
// block이 값을 읽은 뒤에야(마지막으로 끝나는 block이) 올리니, 한 launch의 block은 모두 같은 쪽을 택해요.
__device__ unsigned int g_launches;
__device__ unsigned int g_blocks_done;

extern "C" __global__ void hgemm(const __half* A, const __half* B, float* C, int M, int N, int K)
{
    const unsigned int seen = *(volatile unsigned int*)&g_launches;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (seen < 12 && row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
        C[(size_t)row * N + col] = acc;
    }
    __syncthreads();  // every thread of this block has read g_launches
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        __threadfence();
        const unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
        if (atomicAdd(&g_blocks_done, 1u) == blocks - 1) {  // the last block of this launch
            g_blocks_done = 0;
            atomicAdd(&g_launches, 1u);
            __threadfence();
        }
    }
}
