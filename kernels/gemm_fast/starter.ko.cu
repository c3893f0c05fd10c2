// gemm_fast 시작 코드: gemm 연습 문제와 같은 C = A * B예요. 목표는 32 x 32 shared memory tiled
// 커널의 두 배 이상이에요. 흔한 길: thread마다 C의 작은 block(예: 8 x 8)을 register에서 계산해서,
// shared memory에서 읽은 값 하나가 FMA 여러 번에 쓰이게 해요.
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채우세요.
// 처음 쓸 launch 요청: {"block": [16, 16, 1], "tile": [64, 64], "smem": 0}
// (thread 256개짜리 block마다 C의 64 x 64 tile: thread마다 출력 4 x 4개).
#define TM 4
#define TN 4
#define BK 16

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[BK][64];   // A의 64 x BK 조각, 전치해서 저장
    __shared__ float Bs[BK][64];   // B의 BK x 64 조각
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float acc[TM][TN] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        // TODO: thread 256개가 As와 Bs를 load해요 (행렬 밖은 0). 그다음 __syncthreads()
        // TODO: 조각 안의 k마다: A 값 TM개와 B 값 TN개를 register로 읽고, 그 TM x TN개의 곱을
        //       acc에 누적한 다음, 다시 __syncthreads()
        (void)As; (void)Bs; (void)A; (void)B;
    }

    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            const int r = m0 + ty + 16 * i, c = n0 + tx + 16 * j;
            if (r < M && c < N) C[(size_t)r * N + c] = acc[i][j];
        }
}
