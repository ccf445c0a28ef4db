def greet(name):
    return "hello " + nme


if __name__ == "__main__":
    print(greet("bob"))
