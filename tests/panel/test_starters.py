"""Korean starter comments: starter.ko.yaml replaces each comment's text and nothing else."""
from __future__ import annotations

from app.panel.starters import comment_texts, load_translations, translate_comments

SOURCE = ("// gemm starter: fill in the TODO.\n"
          "int x = 1;   // column of C\n"
          "    // not translated here\n"
          "int y = 2;\n")


def test_each_comment_is_replaced_and_the_code_is_not():
    out = translate_comments(SOURCE, {"gemm starter: fill in the TODO.": "gemm 시작 코드: TODO를 채우세요.",
                                      "column of C": "C의 column"})
    assert out == ("// gemm 시작 코드: TODO를 채우세요.\n"
                   "int x = 1;   // C의 column\n"
                   "    // not translated here\n"
                   "int y = 2;\n")


def test_comment_texts_are_stripped_and_in_order():
    assert comment_texts(SOURCE) == ["gemm starter: fill in the TODO.", "column of C", "not translated here"]


def test_a_missing_or_broken_file_translates_nothing(tmp_path):
    assert load_translations(tmp_path / "absent.yaml") == {}
    (tmp_path / "broken.yaml").write_text("- a list, not a mapping\n", encoding="utf-8")
    assert load_translations(tmp_path / "broken.yaml") == {}
    (tmp_path / "bad.yaml").write_text("key: [unclosed\n", encoding="utf-8")
    assert load_translations(tmp_path / "bad.yaml") == {}
    assert translate_comments(SOURCE, {}) == SOURCE
