package main

import "testing"

func TestFine(t *testing.T) { t.Log("line noise main_test.go:3: looks like a location") }
