import sys


def parse(argv:
    return argv[1:]


print(parse(sys.argv))
