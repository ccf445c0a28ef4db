#!/bin/sh
# CI: every file gofmt-clean (one "file:line:col: message (gofmt)" line per
# file, at its first badly formatted line), then vet and the tests.
rc=0
for f in $(gofmt -l .); do
	gofmt -d "$f" | awk -v f="$f" '
		/^@@/ { split($2, a, ","); l = -a[1]; next }
		/^---|^\+\+\+|^diff/ { next }
		/^-/ { print f ":" l ":1: File is not properly formatted (gofmt)"; exit }
		/^ / { l++ }'
	rc=1
done
go vet ./... && go test ./... || rc=1
exit $rc
