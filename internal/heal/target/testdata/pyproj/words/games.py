"""Word games."""


def _normalise(s):
    return s.strip()


def _reverse(s):
    return s[::-1]


def is_palindrome(phrase):
    s = _normalise(phrase)
    return s == _reverse(s)


def sort_key(word):
    return (_normalise(word).lower(), _normalise(word))
