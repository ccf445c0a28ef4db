import os
import sys


def index(request):
    x = 1
    return render(request)
