#!/bin/sh
# Regenerates the name indexes the rules tier embeds, from the toolchains
# installed on this machine: Python's standard library module names, the
# public classes of the JDK's java.* modules by simple name, and node's
# built-in modules. Run from the repository root after a toolchain upgrade,
# then review and commit internal/heal/rules/data/.
set -eu
out=heal/rules/data
python3 -c "import sys; print('\n'.join(sorted(sys.stdlib_module_names)))" > "$out/python_stdlib.txt"
java scripts/heal/GenJdkIndex.java > "$out/jdk_classes.txt"
node -e "console.log(require('module').builtinModules.filter(m=>!m.startsWith('_')).sort().join('\n'))" > "$out/node_builtins.txt"
wc -l "$out"/*.txt
