"""Draw the lesson figures that carry words, once per language: NN-name.svg (English) and
NN-name.ko.svg (Korean) in static/img/lessons/. Run from the repository root:

    .venv/bin/python lessons/make_figures.py

Top-level files in lessons/ are not lessons (the site reads only NN-slug folders).
"""
from __future__ import annotations

import math
from html import escape
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "static" / "img" / "lessons"

STYLE = """  <style>
    .card { fill: #ffffff; stroke: #cbd5e1; }
    .frame { fill: none; stroke: #475569; stroke-width: 1.5; }
    .grid { fill: none; stroke: #94a3b8; stroke-width: 1; }
    .line { fill: none; stroke: #2563eb; stroke-width: 2.5; }
    .busy { fill: #3b82f6; fill-opacity: 0.55; }
    .idle { fill: #94a3b8; fill-opacity: 0.25; }
    .hot { fill: #f59e0b; fill-opacity: 0.6; }
    .box { fill: #f1f5f9; stroke: #475569; stroke-width: 1.2; }
    .arrow { stroke: #475569; stroke-width: 1.5; fill: none; marker-end: url(#arrowhead); }
    .txt { fill: #1e293b; font-size: 14px; }
    .small { fill: #475569; font-size: 12px; }
    .dot { fill: #f59e0b; stroke: #1e293b; }
    .halo { paint-order: stroke; stroke: #ffffff; stroke-width: 4px; stroke-linejoin: round; }
    @media (prefers-color-scheme: dark) {
      .card { fill: #0f172a; stroke: #334155; }
      .frame { stroke: #cbd5e1; }
      .grid { stroke: #64748b; }
      .line { stroke: #60a5fa; }
      .box { fill: #1e293b; stroke: #94a3b8; }
      .arrow { stroke: #94a3b8; }
      .txt { fill: #e2e8f0; }
      .small { fill: #94a3b8; }
      .dot { stroke: #e2e8f0; }
      .halo { stroke: #0f172a; }
    }
  </style>
  <defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#64748b"/></marker></defs>
"""


def svg(title: str, desc: str, body: list[str], w: int = 760, h: int = 320) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
            f'aria-labelledby="t d" font-family="system-ui, -apple-system, Segoe UI, sans-serif">\n'
            f'  <title id="t">{escape(title)}</title>\n  <desc id="d">{escape(desc)}</desc>\n{STYLE}'
            f'  <rect class="card" x="1" y="1" width="{w - 2}" height="{h - 2}" rx="12"/>\n'
            + "".join(f"  {line}\n" for line in body) + "</svg>\n")


def text(x, y, s, cls="txt", anchor="start"):
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(s)}</text>'


# ---- 04 roofline ---------------------------------------------------------------------------
L = {
    "roofline": {
        "en": dict(title="Roofline of an H200 for FP32", desc="Log-log plot of attainable TFLOP/s against arithmetic intensity. The memory roof rises with slope one at 4.8 TB/s, the FP32 roof is flat at about 67 TFLOP/s, they meet at about 14 FLOP per byte. A dashed line at about 11 TFLOP/s is the L1 and shared-memory ceiling of the 32 by 32 tiled kernel (1.5 shared-memory wavefronts per FMA). The naive kernel at 0.25 FLOP per byte is far on the slope; the 32 by 32 tile at 8 would still be on the slope, but sits under that lower ceiling; the 128 by 128 register tile at 32 is under the flat roof.",
                   x="arithmetic intensity (FLOP per byte of DRAM traffic, log scale)", y="TFLOP/s (log)",
                   peak="FP32 peak ≈ 67 TFLOP/s", bw="HBM3e 4.8 TB/s",
                   ridge="ridge ≈ 14 FLOP/byte", naive="naive 0.25", tiled="32×32 tile: 8", reg="128×128 + registers: 32",
                   l1="L1/shared ceiling of the 32×32 tile ≈ 11 TFLOP/s",
                   note="H100 SXM: 3.35 TB/s, ridge ≈ 20"),
        "ko": dict(title="FP32에서 본 H200의 roofline", desc="arithmetic intensity에 대한 도달 가능 TFLOP/s의 로그-로그 그래프예요. 메모리 지붕은 4.8 TB/s로 기울기 1로 올라가고, FP32 지붕은 약 67 TFLOP/s에서 평평하며, 둘은 바이트당 약 14 FLOP에서 만나요. 약 11 TFLOP/s의 점선은 32×32 tiled 커널의 L1/shared memory 천장이에요(FMA당 shared memory wavefront 1.5개). 바이트당 0.25 FLOP인 naive 커널은 비탈 멀리 있고, 8인 32×32 타일은 비탈로만 보면 아직 그 위지만 더 낮은 그 천장 밑에 있어요. 32인 128×128 register 타일은 평평한 지붕 아래에 있어요.",
                   x="arithmetic intensity (DRAM 트래픽 바이트당 FLOP, 로그 눈금)", y="TFLOP/s (로그)",
                   peak="FP32 peak ≈ 67 TFLOP/s", bw="HBM3e 4.8 TB/s",
                   ridge="ridge ≈ 바이트당 14 FLOP", naive="naive 0.25", tiled="32×32 타일: 8", reg="128×128 + register: 32",
                   l1="32×32 타일의 L1/shared 천장 ≈ 11 TFLOP/s",
                   note="H100 SXM: 3.35 TB/s, ridge ≈ 20"),
    },
}


def roofline(lang: str) -> str:
    t = L["roofline"][lang]
    x0, y0, pw, ph = 90, 270, 620, 220  # plot origin (bottom-left) and size
    lx = lambda v: x0 + (math.log10(v) + 1) / 3 * pw      # 0.1 .. 100
    ly = lambda v: y0 - (math.log10(v) + 1) / (math.log10(300) + 1) * ph      # 0.1 .. 300 TFLOP/s
    bw, peak = 4.8, 67.0
    ridge = peak / bw
    l1 = peak / 6  # 32 warp-wide FMAs per 48 shared-memory wavefronts, one wavefront per clock (lesson 4)
    body = [f'<rect class="frame" x="{x0}" y="{y0 - ph}" width="{pw}" height="{ph}"/>']
    for v in (0.1, 1, 10, 100):
        body += [f'<line class="grid" x1="{lx(v):.1f}" y1="{y0}" x2="{lx(v):.1f}" y2="{y0 - ph}" stroke-dasharray="2 4"/>',
                 text(lx(v), y0 + 16, f"{v:g}", "small", "middle"), text(x0 - 8, ly(v) + 4, f"{v:g}", "small", "end")]
        body.append(f'<line class="grid" x1="{x0}" y1="{ly(v):.1f}" x2="{x0 + pw}" y2="{ly(v):.1f}" stroke-dasharray="2 4"/>')
    body.append(f'<polyline class="line" points="{lx(0.1):.1f},{ly(bw * 0.1):.1f} {lx(ridge):.1f},{ly(peak):.1f} {lx(100):.1f},{ly(peak):.1f}"/>')
    # Labels inside the plot cross grid lines: a halo in the card's colour keeps them readable; the
    # peak's label sits between the frame and the 100 line rather than across that line.
    body += [text(lx(ridge) + 8, ly(100) - 6, t["peak"], "small halo"), text(lx(0.25), ly(bw * 0.25) - 30, t["bw"], "small halo"),
             f'<line class="grid" x1="{lx(ridge):.1f}" y1="{y0}" x2="{lx(ridge):.1f}" y2="{ly(peak):.1f}" stroke-dasharray="5 3"/>',
             text(lx(ridge) + 6, y0 - 10, t["ridge"], "small halo")]
    ceiling = f'x1="{x0}" y1="{ly(l1):.1f}" x2="{x0 + pw}" y2="{ly(l1):.1f}"'
    body += [f'<line class="line" {ceiling} stroke-dasharray="8 4" style="stroke: #f59e0b"/>',
             text(x0 + pw - 8, ly(l1) + 18, t["l1"], "small halo", "end")]
    # Each label sits where it stays inside the frame: the 32 label of the register tile would
    # run past the right edge if it started at its dot, so it is centred under the dot.
    places = {"naive": (8, 18, "start"), "tiled": (-10, -8, "end"), "reg": (0, 20, "middle")}
    for v, key in ((0.25, "naive"), (8, "tiled"), (32, "reg")):
        y = min(bw * v, peak, l1) if key == "tiled" else min(bw * v, peak)
        dx, dy, anchor = places[key]
        body += [f'<circle class="dot" cx="{lx(v):.1f}" cy="{ly(y):.1f}" r="5"/>', text(lx(v) + dx, ly(y) + dy, t[key], "small halo", anchor)]
    body += [text(x0 + pw / 2, y0 + 36, t["x"], "small", "middle"),
             f'<text class="small" transform="translate(24 {y0 - ph / 2}) rotate(-90)" text-anchor="middle">{escape(t["y"])}</text>',
             text(x0 + pw, 30, t["note"], "small", "end"), text(x0, 36, t["title"], "txt")]
    return svg(t["title"], t["desc"], body)


# ---- 05 waves and block order --------------------------------------------------------------
L["waves"] = {
    "en": dict(title="Waves and block order", desc="Left: 132 SM slots; a grid of 64 blocks fills 64 and leaves 68 idle for the whole run; a grid of 140 blocks fills one wave and needs a second wave with only 8 blocks. Right: an 8 by 8 grid of C tiles; the first 16 blocks in row-by-row order cover two block rows and need all of B; in grouped order they cover a 4 by 4 patch and need 4 strips of A and 4 of B.",
               one="64 blocks: 68 of 132 SMs idle", two="140 blocks: wave 2 holds 8", rows="row by row: 2 strips of A, all 8 of B",
               grouped="grouped (4 rows): 4 strips of A, 4 of B", first="first 16 blocks"),
    "ko": dict(title="Wave와 block 순서", desc="왼쪽: SM 자리 132개. block 64개짜리 grid는 64자리를 채우고 실행 내내 68자리를 놀려요. block 140개짜리 grid는 wave 하나를 채우고 block 8개만 든 두 번째 wave가 필요해요. 오른쪽: C 타일의 8×8 grid. row 순서의 처음 block 16개는 block row 두 줄을 덮어서 B 전체가 필요하고, 묶음 순서에서는 4×4 조각을 덮어서 A의 띠 4개와 B의 띠 4개면 돼요.",
               one="block 64개: SM 132개 중 68개가 놀아요", two="block 140개: wave 2에 8개뿐", rows="row 순서: A 띠 2개, B 띠 8개 전부",
               grouped="묶음 순서(4줄): A 띠 4개, B 띠 4개", first="처음 block 16개"),
}


def waves(lang: str) -> str:
    t = L["waves"][lang]
    body = [text(24, 30, t["title"])]
    for gi, (blocks, label, top) in enumerate(((64, t["one"], 50), (140, t["two"], 180))):
        body.append(text(24, top, label, "small"))
        for wave in range(2 if blocks > 132 else 1):
            for i in range(132):
                n = wave * 132 + i
                cls = "busy" if n < blocks else "idle"
                x, y = 24 + wave * 180 + (i % 12) * 13, top + 10 + (i // 12) * 9
                body.append(f'<rect class="{cls}" x="{x}" y="{y}" width="11" height="7"/>')
    for k, (label, cells) in enumerate(((t["rows"], [(r, c) for r in range(2) for c in range(8)]),
                                        (t["grouped"], [(r, c) for r in range(4) for c in range(4)]))):
        x0, y0 = 420 + k * 170, 70
        body.append(text(x0, y0 - 12, t["first"], "small"))
        for r in range(8):
            for c in range(8):
                cls = "hot" if (r, c) in cells else "idle"
                body.append(f'<rect class="{cls}" x="{x0 + c * 17}" y="{y0 + r * 17}" width="15" height="15"/>')
        words = label.split(": ")
        body += [text(x0, y0 + 160, words[0] + ":", "small"), text(x0, y0 + 176, words[1], "small")]
    return svg(t["title"], t["desc"], body)


# ---- 05 split-K ----------------------------------------------------------------------------
L["splitk"] = {
    "en": dict(title="Split-K", desc="A and B are cut along K into four slices. Four blocks each multiply one slice and produce a partial tile of the same output tile. A reduction adds the four partial tiles into C.",
               a="A: M × K", b="B: K × N", part="partial tile", red="reduction: fixed order, or atomicAdd", c="C tile", blk="block"),
    "ko": dict(title="Split-K", desc="A와 B를 K 방향으로 네 조각으로 나눠요. block 네 개가 조각을 하나씩 곱해서 같은 출력 타일의 부분 타일을 만들어요. 합치는 단계가 부분 타일 네 개를 C에 더해요.",
               a="A: M × K", b="B: K × N", part="부분 타일", red="합치기: 정해진 순서, 또는 atomicAdd", c="C 타일", blk="block"),
}
COLORS = ("#3b82f6", "#f59e0b", "#10b981", "#a855f7")


def splitk(lang: str) -> str:
    t = L["splitk"][lang]
    body = [text(24, 30, t["title"]), text(24, 62, t["a"], "small"), text(24, 172, t["b"], "small")]
    for s in range(4):
        body += [f'<rect x="{24 + s * 60}" y="70" width="58" height="40" fill="{COLORS[s]}" fill-opacity="0.5"/>',
                 f'<rect x="24" y="{180 + s * 25}" width="80" height="23" fill="{COLORS[s]}" fill-opacity="0.5"/>']
        x = 320 + s * 85
        body += [text(x + 35, 92, f'{t["blk"]} {s}', "small", "middle"),
                 f'<rect x="{x}" y="100" width="70" height="70" fill="{COLORS[s]}" fill-opacity="0.5" stroke="#475569"/>',
                 text(x + 35, 188, t["part"], "small", "middle"),
                 f'<path class="arrow" d="M{x + 35},196 L{520},236"/>']
    body += [f'<rect class="box" x="480" y="240" width="84" height="60"/>', text(522, 275, t["c"], "txt", "middle"),
             text(470, 312, t["red"], "small", "end")]
    return svg(t["title"], t["desc"], body)


# ---- 05 epilogue ---------------------------------------------------------------------------
L["epilogue"] = {
    "en": dict(title="The α/β epilogue", desc="The accumulators in registers are multiplied by alpha. Only when beta is not zero is the old C tile read, multiplied by beta and added. The result is stored to C once.",
               acc="acc (registers)", alpha="× α", old="old C (read only if β ≠ 0)", beta="× β", add="+", store="store C once",
               note="β = 0: never read C (it may hold NaN)"),
    "ko": dict(title="α/β epilogue", desc="register의 accumulator에 alpha를 곱해요. beta가 0이 아닐 때만 옛 C 타일을 읽어서 beta를 곱해 더해요. 결과는 C에 한 번 저장해요.",
               acc="acc (register)", alpha="× α", old="옛 C (β ≠ 0일 때만 읽어요)", beta="× β", add="+", store="C에 한 번 저장",
               note="β = 0이면 C를 읽지 않아요(NaN이 있을 수 있어요)"),
}


def epilogue(lang: str) -> str:
    t = L["epilogue"][lang]
    body = [text(24, 30, t["title"])]
    boxes = [(40, 90, 150, t["acc"]), (240, 90, 80, t["alpha"]), (390, 150, 60, t["add"]), (520, 150, 170, t["store"]),
             (40, 210, 190, t["old"]), (270, 210, 80, t["beta"])]
    for x, y, w, label in boxes:
        body += [f'<rect class="box" x="{x}" y="{y}" width="{w}" height="44" rx="6"/>', text(x + w / 2, y + 27, label, "txt", "middle")]
    body += ['<path class="arrow" d="M190,112 L238,112"/>', '<path class="arrow" d="M320,112 L400,150"/>',
             '<path class="arrow" d="M230,232 L268,232"/>', '<path class="arrow" d="M350,232 L400,194"/>',
             '<path class="arrow" d="M450,172 L518,172"/>', text(24, 296, t["note"], "small")]
    return svg(t["title"], t["desc"], body)


# ---- 06 Hopper pipeline --------------------------------------------------------------------
L["hopper"] = {
    "en": dict(title="A warp-specialised pipeline on Hopper", desc="A producer warpgroup (one thread of it) issues TMA copies from global memory into a ring of four shared-memory stages. Each stage has a full mbarrier, completed by the copy's bytes, and an empty mbarrier, signalled by the consumers. Two consumer warpgroups wait on full, run wgmma on the stage and signal empty.",
               gmem="global memory", prod="producer warpgroup", tma="TMA copy (one thread, whole tile)", stage="stage",
               full="full", empty="empty", cons1="consumer warpgroup 0: wgmma", cons2="consumer warpgroup 1: wgmma",
               note="no __syncthreads(): each stage's mbarriers say when it is full or free"),
    "ko": dict(title="Hopper의 warp specialisation pipeline", desc="생산자 warpgroup(그중 thread 하나)이 global memory에서 shared memory stage 네 개의 고리로 TMA 복사를 내요. stage마다 복사의 바이트로 채워지는 full mbarrier와 소비자가 알리는 empty mbarrier가 있어요. 소비자 warpgroup 두 개가 full을 기다렸다가 그 stage로 wgmma를 돌리고 empty를 알려요.",
               gmem="global memory", prod="생산자 warpgroup", tma="TMA 복사 (thread 하나, 타일 전체)", stage="stage",
               full="full", empty="empty", cons1="소비자 warpgroup 0: wgmma", cons2="소비자 warpgroup 1: wgmma",
               note="__syncthreads()가 없어요: stage마다 mbarrier가 찼는지 비었는지 알려 줘요"),
}


def hopper(lang: str) -> str:
    t = L["hopper"][lang]
    body = [text(24, 30, t["title"]),
            '<rect class="box" x="24" y="60" width="130" height="44" rx="6"/>', text(89, 87, t["gmem"], "small", "middle"),
            '<rect class="box" x="24" y="150" width="130" height="44" rx="6"/>', text(89, 177, t["prod"], "small", "middle"),
            '<path class="arrow" d="M154,172 L230,172"/>', '<path class="arrow" d="M154,82 L230,140"/>',
            text(24, 240, t["tma"], "small")]
    for s in range(4):
        x = 240 + s * 100
        body += [f'<rect x="{x}" y="120" width="88" height="90" fill="{COLORS[s]}" fill-opacity="0.35" stroke="#475569"/>',
                 text(x + 44, 145, f'{t["stage"]} {s}', "small", "middle"),
                 f'<rect class="box" x="{x + 8}" y="158" width="72" height="18"/>', text(x + 44, 171, t["full"], "small", "middle"),
                 f'<rect class="box" x="{x + 8}" y="182" width="72" height="18"/>', text(x + 44, 195, t["empty"], "small", "middle")]
    body += ['<rect class="box" x="300" y="250" width="200" height="36" rx="6"/>', text(400, 273, t["cons1"], "small", "middle"),
             '<rect class="box" x="520" y="250" width="200" height="36" rx="6"/>', text(620, 273, t["cons2"], "small", "middle"),
             '<path class="arrow" d="M400,212 L400,248"/>', '<path class="arrow" d="M620,212 L620,248"/>',
             text(24, 306, t["note"], "small")]
    return svg(t["title"], t["desc"], body)


FIGURES = {"04-roofline": roofline, "05-waves": waves, "05-split-k": splitk, "05-epilogue": epilogue,
           "06-hopper-pipeline": hopper}


def main() -> None:
    for name, draw in FIGURES.items():
        for lang, suffix in (("en", ".svg"), ("ko", ".ko.svg")):
            (OUT / f"{name}{suffix}").write_text(draw(lang), encoding="utf-8")


if __name__ == "__main__":
    main()


# ---- Korean twins of the hand-drawn figures: the same drawing, labels translated ---------------
KO_LABELS = {
    "01-warp-addresses": {
        "32 sectors × 32 B = 1024 B moved, 128 B used (12.5%)": "sector 32개 × 32 B = 1024 B를 옮기고 128 B를 써요 (12.5%)",
        "4 sectors × 32 B = 128 B moved, 128 B used (100%)": "sector 4개 × 32 B = 128 B를 옮기고 128 B를 써요 (100%)",
        "Addresses read by one warp: along a row (4 sectors) versus down a column (32 sectors)": "warp 하나가 읽는 주소: row를 따라가면 sector 4개, column을 따라 내려가면 sector 32개",
        "Down a column, lane i reads in[(r0+i)·ld + c]": "column을 따라 내려가면 lane i가 in[(r0+i)·ld + c]를 읽어요",
        "Row-major, lanes 0–31 read in[r·ld + c0 … c0+31]": "row-major에서 lane 0–31이 in[r·ld + c0 … c0+31]을 읽어요",
        "each box = one 32-byte sector (8 floats); filled cell = a float a lane asked for": "상자 하나 = 32바이트 sector 하나(float 8개), 채운 칸 = lane이 요청한 float",
        "… lane 31": "… lane 31",
    },
    "02-tree-reduction": {
        "16 values in shared memory": "shared memory의 값 16개",
        "Tree reduction of 16 values with sequential addressing: strides 8, 4, 2, 1, with a barrier between levels": "값 16개를 연속 주소로 tree reduction해요: stride 8, 4, 2, 1, 단계 사이마다 barrier",
        "blue: sdata[tid] keeps its value · orange: sdata[tid + s] is added into it": "파랑: sdata[tid]가 값을 유지해요 · 주황: sdata[tid + s]를 거기에 더해요",
        "s = 1 · thread 0 → block sum": "s = 1 · thread 0 → block 합",
        "s = 2 · threads 0–1 add": "s = 2 · thread 0–1이 더해요",
        "s = 4 · threads 0–3 add": "s = 4 · thread 0–3이 더해요",
        "s = 8 · threads 0–7 add": "s = 8 · thread 0–7이 더해요",
    },
    "03-bank-mapping": {
        "Bank number of each element of a shared tile: float[32][32] puts a whole column in one bank; float[32][33] spreads it over all banks": "shared 타일 원소마다의 bank 번호: float[32][32]는 column 하나를 통째로 bank 하나에 두고, float[32][33]은 모든 bank에 흩어요",
        "column 0 read by a warp: 32 lanes → bank 0": "warp가 column 0을 읽으면: lane 32개 → bank 0",
        "column 0 read by a warp: banks 0, 1, 2, … 31": "warp가 column 0을 읽으면: bank 0, 1, 2, … 31",
        "float tile[32][33]  (padded)": "float tile[32][33]  (padding)",
        "→ 32-way conflict, 32 passes": "→ 32-way conflict, 32번 거쳐요",
        "→ no conflict, 1 pass (grey: unused pad)": "→ conflict 없음, 한 번에 끝나요 (회색: 쓰지 않는 padding)",
    },
    "04-tiled-gemm": {
        "1  load A tile, B tile": "1  A 타일, B 타일 load",
        "3  32 FMAs per thread": "3  thread마다 FMA 32번",
        "5  k0 += 32, repeat": "5  k0 += 32, 반복",
        "A block computes one 32 by 32 tile of C from a strip of A and a strip of B, one K-slice at a time. Each slice is copied to shared memory, the block synchronises, every thread does 32 FMAs, the block synchronises again and moves to the next slice.": "block 하나가 A의 띠와 B의 띠로 C의 32×32 타일 하나를 K-slice 하나씩 계산해요. slice마다 shared memory로 복사하고, block이 동기화하고, 모든 thread가 FMA 32번을 하고, 다시 동기화한 뒤 다음 slice로 가요.",
        "A tile": "A 타일", "B tile": "B 타일", "C tile 32×32": "C 타일 32×32", "Per K-slice": "K-slice마다",
        "Tiled GEMM": "Tiled GEMM", "from shared memory": "shared memory에서", "→ shared memory": "→ shared memory로",
    },
    "05-tiling-hierarchy": {
        "16 loads → 64 FMAs per k": "k마다 load 16번 → FMA 64번",
        "32 lanes (8 × 4)": "lane 32개 (8 × 4)",
        "64 accumulators in registers": "register의 accumulator 64개",
        "8 warps (2 × 4)": "warp 8개 (2 × 4)",
        "A 128 by 128 block tile of C is split into eight 64 by 32 warp tiles. Each warp tile is split into 32 thread tiles of 8 by 8, one per lane. A thread tile is updated at every k by the outer product of 8 values of A and 8 values of B held in registers.": "C의 128×128 block 타일은 64×32 warp 타일 8개로 나뉘어요. warp 타일마다 lane 하나에 하나씩 8×8 thread 타일 32개로 나뉘어요. thread 타일은 k마다 register에 든 A 값 8개와 B 값 8개의 외적으로 갱신돼요.",
        "Block tile 128 × 128": "block 타일 128 × 128",
        "Block tile, warp tile, thread tile": "block 타일, warp 타일, thread 타일",
        "Thread tile 8 × 8": "thread 타일 8 × 8",
        "Warp tile 64 × 32": "warp 타일 64 × 32",
    },
}


def korean_twins() -> None:
    import re

    for name, labels in KO_LABELS.items():
        source = (OUT / f"{name}.svg").read_text(encoding="utf-8")

        def swap(match):
            inner = match.group(2)
            return match.group(1) + escape(labels.get(escape_back(inner), escape_back(inner)), quote=False) + match.group(3)

        out = re.sub(r"(<(?:text|title|desc|tspan)\b[^>]*>)([^<]*)(</)", swap, source)
        (OUT / f"{name}.ko.svg").write_text(out, encoding="utf-8")


def escape_back(s: str) -> str:
    from html import unescape

    return unescape(s)


if __name__ == "__main__":
    korean_twins()
