// transpose 시작 코드: out (cols x rows) = in (rows x cols)을 전치한 것: out[c][r] = in[r][c].
// 이 뼈대는 컴파일되고 실행되지만 아직 맞지 않아요. TODO를 채우세요.
// 처음 쓸 launch 요청: {"block": [32, 32, 1], "tile": [32, 32], "smem": 0}
// blockIdx.x는 출력 column(입력 row)을, blockIdx.y는 출력 row(입력 column)를 맡아요.
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols)
{
    const int r = blockIdx.x * 32 + threadIdx.x;   // 입력 row    = 출력 column
    const int c = blockIdx.y * 32 + threadIdx.y;   // 입력 column = 출력 row
    if (r >= rows || c >= cols) return;

    // TODO: 원소를 복사하세요. 그다음 __shared__ float tile[32][33]으로 읽기와 쓰기를 모두
    //       coalesced로 만드세요 (왜 33일까요? shared memory bank를 생각해 보세요).
    (void)in; (void)out;
}
