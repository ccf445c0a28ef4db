def test_b(:
    pass
