import sys
sys.path.insert(0, "src")
from geo.dist import dist


def test_unit():
    assert dist((0, 0), (3, 4)) == 6
