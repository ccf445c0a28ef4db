#!/bin/bash
echo "building"
compile_all --fast
echo "done"
