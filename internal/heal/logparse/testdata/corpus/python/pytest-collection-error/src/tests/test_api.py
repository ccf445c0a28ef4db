import requestz


def test_get():
    assert requestz.get("x")
