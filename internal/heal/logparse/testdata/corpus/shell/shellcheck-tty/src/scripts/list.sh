#!/bin/bash
set -e

dir=$1
for f in $(ls $dir); do
  echo "file: $f"
done
cd $dir
