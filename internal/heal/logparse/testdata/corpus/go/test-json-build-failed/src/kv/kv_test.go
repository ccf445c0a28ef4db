package kv

import "testing"

func TestKey(t *testing.T) {
	if Key("A") != "a" {
		t.Fatal("key")
	}
}
