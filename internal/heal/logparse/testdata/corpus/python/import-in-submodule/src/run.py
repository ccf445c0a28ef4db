from pkg.util import slug

print(slug("Hello World"))
