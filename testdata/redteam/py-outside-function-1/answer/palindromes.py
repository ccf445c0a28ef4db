"""Word games."""


def _normalise(s):
    return "".join(s.lower().split())

def is_palindrome(phrase):
    """Report whether phrase reads the same backwards, ignoring case and spaces."""
    s = _normalise(phrase)
    return s == s[::-1]


def sort_key(word):
    """Key that sorts words as a dictionary does, keeping case as a tie-break."""
    return (_normalise(word).lower(), _normalise(word))
