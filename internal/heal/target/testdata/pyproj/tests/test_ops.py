import pytest

from calc.ops import add, mul


def test_mul():
    assert mul(2, 3) == 6


def test_add():
    assert add(1, 2) == 3


@pytest.mark.parametrize("a,b", [(1, 2)])
def test_add_params(a, b):
    assert add(a, b) == a + b
