#!/bin/sh
# CI lint step: fail when a file is not gofmt-clean.
files=$(gofmt -l .)
if [ -n "$files" ]; then
	echo "These files are not gofmt-formatted; run gofmt -w on them:"
	echo "$files"
	exit 1
fi
