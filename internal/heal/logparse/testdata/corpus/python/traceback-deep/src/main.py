from lib.stats import mean


def report(values):
    return "mean=%s" % mean(values)


print(report([]))
