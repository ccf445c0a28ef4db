"""Reads notes from comments."""


def parse(text):
    return Parser(text).run()


class Parser:
    def __init__(self, text):
        self.words = text.split()

    def run(self):
        return [self._note(w) for w in self.words]

    def _note(self, word):
        return _upper(word)


def _upper(word):
    return word.upper()


def format_notes(names):
    return ",".join(names)
