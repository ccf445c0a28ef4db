from words.games import is_palindrome


def test_phrase():
    assert is_palindrome("Never odd or even")
