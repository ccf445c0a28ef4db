package auth

import "testing"

func TestEmptyRoleDenied(t *testing.T) {
	if Allowed("") {
		t.Error("empty role must be denied")
	}
}
