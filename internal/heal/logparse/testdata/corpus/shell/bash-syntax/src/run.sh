#!/bin/bash
echo start
if [ "$1" = "x" ]; then
  echo x
fi fi
