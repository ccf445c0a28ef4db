def main():
    items = [1, 2]
    for i in items:
    print(i)


main()
