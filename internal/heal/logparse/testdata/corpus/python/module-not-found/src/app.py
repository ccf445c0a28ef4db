import os
import yamlx


print(yamlx.safe_load(os.environ.get("CFG", "")))
