#!/bin/sh
if [ -f config ]; then
  echo ok
