import pytest

from strings import shout, whisper


def test_shout():
    assert shout("hi") == "HI!"


def test_whisper():
    assert whisper("HI") == "hi."


class TestEdge:
    def test_empty(self):
        assert shout("") == ""

    @pytest.mark.parametrize("s", ["a", "b"])
    def test_param(self, s):
        assert whisper(s) == s
