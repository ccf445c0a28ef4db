def greet(name):
    if name:
        print("hi", name)
      return name
