// row_sum 시작 코드: out[i] = X[i][0] + X[i][1] + ... + X[i][cols-1], X는 row-major (rows x cols).
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채우세요.
// 처음 쓸 launch 요청: {"block": [256, 1, 1], "tile": [1, 1], "smem": 0}
// (tile [1, 1] = row마다 block 하나. grid = (1, rows, 1)).
extern "C" __global__ void row_sum(const float* X, float* out, int rows, int cols)
{
    const int row = blockIdx.y;
    if (row >= rows) return;
    const float* p = X + (size_t)row * cols;

    float sum = 0.0f;
    // TODO: thread t가 p[t], p[t + blockDim.x], ...를 더해요 (이웃한 thread, 이웃한 주소).
    //       그다음 thread들의 부분합을 합치세요 (warp shuffle이나 __shared__).
    (void)p;

    if (threadIdx.x == 0) out[row] = sum;
}
