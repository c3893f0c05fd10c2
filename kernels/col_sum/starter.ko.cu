// col_sum 시작 코드: out[j] = X[0][j] + X[1][j] + ... + X[rows-1][j], X는 row-major (rows x cols).
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채우세요.
// column마다 thread 하나(레슨 1): thread `col`이 자기 column을 따라 내려가요. 매 단계에서 warp의
// lane 32개가 한 row의 이웃한 float 32개를 읽으니 모든 load가 coalesced예요.
// 처음 쓸 launch 요청: {"block": [256, 1, 1], "tile": [256, 1], "smem": 0}
// (tile [256, 1] = block마다 column 256개를 끝내요. grid = (ceil(cols / 256), 1, 1)).
extern "C" __global__ void col_sum(const float* X, float* out, int rows, int cols)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= cols) return;

    float sum = 0.0f;
    // TODO: 모든 row r = 0 .. rows-1에 대해 X[r][col]을 더하세요 (row-major: X[(size_t)r * cols + col]).
    //       나중에 속도 등급을 노린다면: row를 threadIdx.y로 나누고 부분합을 shared memory에서
    //       합치세요 (레슨 2).

    out[col] = sum;
}
