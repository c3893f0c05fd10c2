// gemm 시작 코드: C (M x N) = A (M x K) * B (K x N), 모두 float32, row-major.
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채우세요.
// 처음 쓸 launch 요청: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
// (C의 원소마다 thread 하나. grid = (ceil(N / 32), ceil(M / 32), 1)).
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;   // C의 column
    const int row = blockIdx.y * blockDim.y + threadIdx.y;   // C의 row
    if (row >= M || col >= N) return;

    float acc = 0.0f;
    // TODO: acc = k에 대한 A[row][k] * B[k][col]의 합  (row-major: A[row][k]는 A[row * K + k]).
    //       그다음 A와 B의 tile을 __shared__ memory에 올려 보세요 (레슨 4).
    (void)A; (void)B; (void)K;

    C[(size_t)row * N + col] = acc;
}
