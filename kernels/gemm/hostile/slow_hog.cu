// HOSTILE: correct, but computes every dot product 3000 times over (about 2500x the naive kernel's
// time on an H100). Each repetition starts from the previous sum times zero, so the compiler cannot hoist it
// out of the loop, and the answer is the naive kernel's, bit for bit. It must not hold the GPU for
// its whole timing: it is stopped after one timed-size launch as too slow to time.
// expect: TOO_SLOW
// launch: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
// 한국어: 결과는 맞지만 내적마다 3000번씩 다시 계산해요(H100에서 naive 커널의 약 2500배 시간). 반복마다 앞의
// 합에 0을 곱한 값에서 시작하니 컴파일러가 반복을 없애지 못하고, 답은 naive 커널과 비트까지 같아요.
// 시간 측정 내내 GPU를 붙잡으면 안 돼요: 측정 크기에서 한 번 실행한 뒤 너무 느리다고 멈춰요.
#define REPEATS 3000
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int r = 0; r < REPEATS; ++r) {
        float sum = acc * 0.0f;  // 0 for finite inputs; not folded without fast math
        for (int k = 0; k < K; ++k)
            sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
        acc = sum;
    }
    C[(size_t)row * N + col] = acc;
}
